# SPDX-License-Identifier: BSD-3-Clause
# Sphinx configuration of the dpverbs guides (doc/meson.build runs
# sphinx-build -W on this folder, with -D version=... from meson).
project = 'dpverbs'
copyright = 'the dpverbs authors'
version = release = ''
master_doc = 'index'
exclude_patterns = ['_build']
html_theme = 'alabaster'
html_theme_options = {'nosidebar': False}
html_show_sourcelink = False
