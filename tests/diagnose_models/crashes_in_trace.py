"""A model that segfaults while torch.jit.trace records it (a native crash); export works."""
import ctypes

import torch


class CrashesInTrace(torch.nn.Module):
    def forward(self, x):
        if torch.jit.is_tracing():
            ctypes.string_at(0)  # reads address 0: SIGSEGV, as a broken native extension would
        return x * 2


model = CrashesInTrace()
example_args = (torch.randn(2, 3),)
