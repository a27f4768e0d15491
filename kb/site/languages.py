"""The site's languages: English sources, and the catalogues translated from them."""
LANGUAGES = {"en": "English", "ko": "한국어", "zh_CN": "简体中文"}  # code -> the name its readers know it by
LANGS = tuple(LANGUAGES)
TRANSLATED_LANGS = tuple(lang for lang in LANGS if lang != "en")
