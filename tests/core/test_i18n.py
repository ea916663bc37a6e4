"""Messages render in English without catalogues and in another language from a .po file."""

from pathlib import Path

import pytest

from gemtable.core import i18n
from gemtable.core.i18n import msg, msgn, msgp, render

PO = r'''
msgid ""
msgstr ""
"Language: de\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\n"
"Content-Type: text/plain; charset=UTF-8\n"

msgid "{P0} takes {n} gem"
msgid_plural "{P0} takes {n} gems"
msgstr[0] "{P0} nimmt einen Edelstein"
msgstr[1] "{P0} nimmt {n} Edelsteine"

msgid "Hello {name}"
msgstr "Hallo {name}"

msgid "blue"
msgstr "blau"

msgctxt "card"
msgid "Level"
msgstr "Stufe"

msgid "Level"
msgstr "Ebene"

#, fuzzy
msgid "Draft"
msgstr "Entwurf"
'''


@pytest.fixture
def domain(tmp_path: Path) -> Path:
    (tmp_path / "de.po").write_text(PO, encoding="utf-8")
    i18n.catalogue.cache_clear()
    return tmp_path


def test_english_is_the_message_itself_with_fields_filled():
    assert render(msg("Hello {name}", name="Ann")) == "Hello Ann"
    assert render(msgn("{P0} takes {n} gem", "{P0} takes {n} gems", n=1)) == "{P0} takes 1 gem"
    assert render(msgn("{P0} takes {n} gem", "{P0} takes {n} gems", n=3)) == "{P0} takes 3 gems"
    assert render("stored before") == "stored before"
    assert render(msg("{missing} stays")) == "{missing} stays"


def test_another_language_with_plurals_contexts_and_nested_messages(domain):
    d = [domain]
    assert render(msgn("{P0} takes {n} gem", "{P0} takes {n} gems", n=1), "de", d) == "{P0} nimmt einen Edelstein"
    assert render(msgn("{P0} takes {n} gem", "{P0} takes {n} gems", n=2), "de", d) == "{P0} nimmt 2 Edelsteine"
    assert render(msg("Hello {name}", name=msg("blue")), "de", d) == "Hallo blau"
    assert render(msgp("card", "Level"), "de", d) == "Stufe"
    assert render(msg("Level"), "de", d) == "Ebene"
    # a fuzzy entry is not a translation; a missing one falls back to English
    assert render(msg("Draft"), "de", d) == "Draft"
    assert render(msg("Unknown {x}", x=1), "de", d) == "Unknown 1"
    assert render(msg("Hello {name}", name="Ann"), "fr", d) == "Hello Ann"


def test_a_field_value_is_data_and_never_filled_again():
    assert render(msg("Hello {name}", name="{name}")) == "Hello {name}"


def test_audit_names_missing_and_mismatched_translations(domain, tmp_path):
    used = {(None, "Hello {name}", None): [], (None, "Bye {name}", None): [],
            (None, "{P0} takes {n} gem", "{P0} takes {n} gems"): [], ("card", "Level", None): [],
            (None, "Draft", None): []}
    problems = i18n.audit(domain, used, "de")
    assert any("'Bye {name}': no translation" in p for p in problems)
    assert any("'Draft': no translation" in p for p in problems)
    assert len(problems) == 2
    bad = PO.replace('msgstr "Hallo {name}"', 'msgstr "Hallo {nom}"')
    (domain / "de.po").write_text(bad, encoding="utf-8")
    problems = i18n.audit(domain, {(None, "Hello {name}", None): []}, "de")
    assert problems and "differ from the English" in problems[0]
    assert i18n.audit(domain, used, "fr") == [f"{domain / 'fr.po'}: missing"]


def test_extract_finds_the_three_builders(tmp_path):
    src = tmp_path / "x.py"
    src.write_text('a = msg("One {x}", x=1)\nb = msgn("{n} gem", "{n} gems", n=2)\nc = msgp("card", "Level")\n')
    found = i18n.extract([src])
    assert set(found) == {(None, "One {x}", None), (None, "{n} gem", "{n} gems"), ("card", "Level", None)}


def test_languages_are_the_catalogue_files(domain):
    assert i18n.languages(domain) == ["en", "de"]


@pytest.mark.parametrize("header, lang", [
    ("de-DE,de;q=0.9,en;q=0.8", "de"), ("fr, de;q=0.5", "de"), ("fr", "en"), ("", "en"),
    ("en;q=0.2, de;q=0.9", "de"), ("de;q=0", "en"), ("*", "en"), ("de;q=abc, en", "en"),
])
def test_accept_language(header, lang):
    assert i18n.negotiate(i18n.accept_language(header), ["en", "de"]) == lang


def test_environment_language_as_gettext_reads_it():
    assert i18n.from_environment({"LANG": "de_DE.UTF-8"}) == ["de_DE.UTF-8"]
    assert i18n.from_environment({"LANGUAGE": "de:en", "LANG": "fr_FR"}) == ["de", "en"]
    assert i18n.from_environment({"LANG": "C.UTF-8"}) == []
    assert i18n.negotiate(i18n.from_environment({"LANG": "de_AT.UTF-8"}), ["en", "de"]) == "de"
