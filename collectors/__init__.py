"""Collectors: run export attempts in isolated processes and record observations.

This package needs torch at run time (in the worker processes it starts); the parent
side only starts processes and reads their output.
"""
