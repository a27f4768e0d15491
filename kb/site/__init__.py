"""The documentation site: kb.db -> RST pages -> Sphinx, in English, Korean and Chinese.

builder    the build: render the sources, run Sphinx per language, update the catalogues
data       what the pages show, read out of kb.db as plain data
render     the Sphinx source tree: hand-written pages plus pages rendered from the data
rst        prose and values quoted safely for reStructuredText
i18n       translation coverage of the ko and zh_CN catalogues
fork       one runner process that forks each sphinx-build
sphinx_ext the Sphinx extension that conf.py loads
languages  the site's languages, one definition for the site and the UI

`python -m kb.site` builds it (see kb.site.builder).
"""
