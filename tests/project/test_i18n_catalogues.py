"""Every text shown to people goes through the gettext catalogues, and German and French are complete.

Which catalogue ("domain") a file's text belongs to is written in the file itself, so nobody edits a table here
to add one: a template names it in its first line, ``{# i18n: site #}``; a Python module in a module-level
``I18N_DOMAIN = "site"``. For every domain the messages of its files are extracted with Babel's extractors
(Jinja's ``babel_extract`` for templates, Babel's Python extractor with the keywords below) and compared with
``locale/<lang>/LC_MESSAGES/<domain>.po`` of each language but English (the source: its text is the message id):

* every message has a translation (not empty, not fuzzy: gettext would show the English);
* no ``.po`` keeps a message no file of its domain uses (a stale translation hides a changed text);
* a translation has the placeholders of its message (``%(name)s``: one missing or misspelt fails at run time);
* one message id is translated alike in every domain of a language (the catalogues are merged into one).

And a lint: a marked template shows no text outside the markers (text between tags, and the ``title``,
``aria-label``, ``placeholder``, ``alt`` attributes and the text of a submit button's ``value``), but for the
contents of ``<script>``, ``<style>``, ``<code>``, ``<pre>``, ``<kbd>``, ``<samp>`` (programs, order notation)
and the few words every language writes alike (:data:`SAME_IN_EVERY_LANGUAGE`) and addresses shown as themselves. JavaScript files are not linted:
their words come from ``_js_words.html``.

:data:`NOT_YET` lists the templates not yet marked; it only shrinks (a marked template listed there fails, as
does a template neither marked nor listed). docs/translating.md tells how to mark text and add a language.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import jinja2
import pytest
from babel.messages.catalog import Catalog
from babel.messages.extract import extract
from babel.messages.pofile import read_po, write_po
from jinja2.ext import babel_extract

from dippouch.i18n import DEFAULT, LANGUAGES

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "dippouch"
TEMPLATES = SRC / "web" / "templates"
LOCALE = SRC / "locale"
TRANSLATED = tuple(lang for lang in LANGUAGES if lang != DEFAULT)
"""The languages that must be complete: every one the site offers but English (the source)."""

KEYWORDS: dict[str, object] = {
    "_": None,
    "gettext": None,
    "ngettext": (1, 2),
    "pgettext": ((1, "c"), 2),
    "npgettext": ((1, "c"), 2, 3),
    "lazy_gettext": None,
    "said_both": (1,),  # play/mail_record.py: a refusal's message, in English for the log and translated for the reply
    "N_": None,  # dippouch.core.messages: a template the core fills in English and the doors translate (said)
    "NP_": ((1, "c"), 2),  # the same, a part of a message (a list's "or") by its context
    "msg": None,  # dippouch.core.messages: a message as a value, said where it is shown (dippouch.saying)
    "nmsg": (1, 2),  # the same, its form by a count
    "pmsg": ((1, "c"), 2),  # the same, told apart by its context
}
"""The functions whose string arguments are messages (Babel's keyword specifications)."""

TEMPLATE_MARKER = re.compile(r"\{#-?\s*i18n:\s*([a-z_]+)\s*-?#\}")
PLACEHOLDER = re.compile(r"%(?:\((\w+)\))?[-#0 +]*\d*(?:\.\d+)?([sdifrxXeEgGc%])")

SAME_IN_EVERY_LANGUAGE = frozenset({"dippouch", "UTC", "API", "OpenAPI", "JSON", "PDF", "SVG", "PNG", "CSV", "DATC"})
"""Words a page may show outside the markers: names and formats every language writes alike."""

UNLINTED_ELEMENTS = frozenset({"script", "style", "code", "pre", "kbd", "samp"})
TEXT_ATTRIBUTES = frozenset({"title", "aria-label", "placeholder", "alt"})

NOT_YET: frozenset[str] = frozenset()
"""Templates whose text is not marked yet (their pages are English in every language). Only shrinks."""


# --------------------------------------------------------------------------------------------------
# Which file belongs to which catalogue


def template_domain(path: Path) -> str | None:
    """The domain a template's first line names (``{# i18n: site #}``), or None."""
    with path.open(encoding="utf-8") as f:
        first = f.readline()
    m = TEMPLATE_MARKER.match(first.strip())
    return m.group(1) if m else None


def module_domain(path: Path) -> str | None:
    """The domain a Python module names in a module-level ``I18N_DOMAIN = "..."``, or None."""
    text = path.read_text(encoding="utf-8")
    if "I18N_DOMAIN" not in text:
        return None
    for node in ast.parse(text).body:
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        )
        value = getattr(node, "value", None)
        for t in targets:
            if isinstance(t, ast.Name) and t.id == "I18N_DOMAIN" and isinstance(value, ast.Constant):
                return str(value.value)
    return None


def domains(src: Path, templates: Path) -> dict[str, list[Path]]:
    """Each domain's files, read from their markers: templates under ``templates``, modules under ``src``."""
    found: dict[str, list[Path]] = {}
    for t in sorted(templates.glob("*.html")):
        if (d := template_domain(t)) is not None:
            found.setdefault(d, []).append(t)
    for m in sorted(src.rglob("*.py")):
        if (d := module_domain(m)) is not None:
            found.setdefault(d, []).append(m)
    return found


# --------------------------------------------------------------------------------------------------
# Extraction


@dataclass(frozen=True)
class Message:
    """An extracted message: its id (singular), its plural if any, its context, and where it was found."""

    id: str
    plural: str | None
    context: str | None
    where: str


def extract_file(path: Path) -> Iterator[Message]:
    """The messages of one template or module, by Babel's extractors (a template that does not parse fails:
    Jinja's extractor would otherwise skip it silently)."""
    method = babel_extract if path.suffix == ".html" else "python"
    options = {"silent": "false"} if path.suffix == ".html" else {}
    with path.open("rb") as f:
        for lineno, msg, _comments, context in extract(method, f, keywords=KEYWORDS, options=options):  # type: ignore[arg-type]
            where = f"{path.name}:{lineno}"
            if isinstance(msg, tuple):
                yield Message(msg[0], msg[1] if len(msg) > 1 else None, context, where)
            else:
                yield Message(msg, None, context, where)


def extracted(files: Iterable[Path]) -> dict[tuple[str, str | None], Message]:
    """The messages of ``files``, one per (id, context)."""
    got: dict[tuple[str, str | None], Message] = {}
    for path in files:
        for m in extract_file(path):
            got.setdefault((m.id, m.context), m)
    return got


def catalogue(locale: Path, lang: str, domain: str) -> Catalog | None:
    po = locale / lang / "LC_MESSAGES" / f"{domain}.po"
    if not po.exists():
        return None
    with po.open("rb") as f:
        return read_po(f, locale=lang, domain=domain)


def placeholders(text: str) -> list[str]:
    """The printf placeholders of a text, sorted (``%%`` is a percent sign, no placeholder)."""
    return sorted(f"%({name}){kind}" if name else f"%{kind}" for name, kind in PLACEHOLDER.findall(text) if kind != "%")


# --------------------------------------------------------------------------------------------------
# The check


@dataclass
class Findings:
    """What the check found wrong, one line each, by kind."""

    missing: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    placeholders: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    lint: list[str] = field(default_factory=list)

    def ok(self) -> bool:
        return not (self.missing or self.stale or self.placeholders or self.conflicts or self.lint)


def check(src: Path, templates: Path, locale: Path, languages: Iterable[str] = TRANSLATED) -> Findings:
    """The whole check on a tree: catalogues against the marked files' messages, and the templates' lint."""
    found = Findings()
    by_domain = domains(src, templates)
    po_domains = {p.stem for p in locale.glob("*/LC_MESSAGES/*.po")}
    seen: dict[tuple[str, str, str | None], tuple[str, str]] = {}
    for domain in sorted(set(by_domain) | po_domains):
        messages = extracted(by_domain.get(domain, []))
        for lang in languages:
            cat = catalogue(locale, lang, domain)
            for (mid, ctx), m in sorted(messages.items(), key=lambda kv: kv[1].where):
                entry = cat.get(mid, ctx) if cat is not None else None
                raw = () if entry is None else entry.string
                strings = [x or "" for x in raw] if isinstance(raw, tuple | list) else [raw or ""]
                if entry is None or entry.fuzzy or not all(strings):
                    found.missing.append(f"{lang}/{domain}.po: {m.where}: {mid!r}")
                    continue
                want = placeholders(mid if m.plural is None else mid + m.plural)
                for s in strings:
                    have = placeholders(s)
                    wanted = sorted(set(want))
                    # A plural form may leave out the number ("ein Befehl"); nothing else may go or be added.
                    if sorted(set(have)) != wanted and not (
                        m.plural is not None and set(have) <= set(want) and set(want) - set(have) <= {"%(num)d", "%d"}
                    ):
                        found.placeholders.append(f"{lang}/{domain}.po: {mid!r} has {wanted}, translated {s!r}")
                first = seen.setdefault((lang, mid, ctx), (domain, strings[0]))
                if first[1] != strings[0]:
                    found.conflicts.append(
                        f"{lang}: {mid!r} is {first[1]!r} in {first[0]}.po but {strings[0]!r} in {domain}.po"
                    )
            if cat is not None:
                for entry in cat:
                    if not entry.id:
                        continue  # the header
                    key = entry.id[0] if isinstance(entry.id, tuple | list) else entry.id
                    if (key, entry.context) not in messages:
                        found.stale.append(f"{lang}/{domain}.po: {key!r} is used by no file of domain {domain}")
    for domain_files in by_domain.values():
        for t in domain_files:
            if t.suffix == ".html":
                found.lint += [
                    f"{t.name}:{line}: {what}" for line, what in unmarked_text(t.read_text(encoding="utf-8"))
                ]
    return found


# --------------------------------------------------------------------------------------------------
# The lint: visible text outside the markers

_HOLE = "\x1a"
"""What a Jinja expression, statement or translated block becomes before the HTML is read: no letter."""


def template_skeleton(source: str) -> str:
    """The template's HTML with every Jinja part (``{{ ... }}``, ``{% ... %}``, comments, and whole
    ``{% trans %}...{% endtrans %}`` blocks) replaced by a letterless mark, keeping the line breaks (so the lint
    can say where)."""
    env = jinja2.Environment(extensions=["jinja2.ext.i18n"])
    out: list[str] = []
    in_trans = False
    expect_tag = False
    in_hole = False
    for _lineno, kind, value in env.lex(source):
        if kind == "block_begin":
            expect_tag = True
        elif expect_tag and kind == "name":
            if value == "trans":
                in_trans = True
            elif value == "endtrans":
                in_trans = False
            expect_tag = False
        elif kind not in ("whitespace",):
            expect_tag = False
        if kind == "data" and not in_trans:
            out.append(value)
            in_hole = False
        else:
            out.append(("" if in_hole else _HOLE) + "\n" * value.count("\n"))
            in_hole = True
    return "".join(out)


def _has_words(text: str) -> bool:
    """Words to translate in ``text``: not the names of :data:`SAME_IN_EVERY_LANGUAGE`, nor an address
    (``/api/open``, ``https://...``, ``someone@example.org``) shown as itself."""
    text = re.sub(r"\S*[/@]\S*", " ", text)
    return any(w not in SAME_IN_EVERY_LANGUAGE for w in re.findall(r"[^\W\d_]+", text))


class _Lint(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[int, str]] = []
        self.skipping: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        for name, value in attrs:
            visible = name in TEXT_ATTRIBUTES or (
                name == "value" and tag == "input" and values.get("type") in ("submit", "button", "reset")
            )
            if visible and value and _has_words(value):
                self.found.append((self.getpos()[0], f'<{tag} {name}="{value.replace(_HOLE, "…")}">'))
        if tag in UNLINTED_ELEMENTS:
            self.skipping.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if self.skipping and self.skipping[-1] == tag:
            self.skipping.pop()

    def handle_data(self, data: str) -> None:
        if not self.skipping and _has_words(data):
            self.found.append((self.getpos()[0], " ".join(data.replace(_HOLE, "…").split())))


def unmarked_text(source: str) -> list[tuple[int, str]]:
    """(line, text) of each visible text of a template outside the markers."""
    lint = _Lint()
    lint.feed(template_skeleton(source))
    lint.close()
    return lint.found


# --------------------------------------------------------------------------------------------------
# The tests


def _report(title: str, lines: list[str]) -> str:
    return f"{title} ({len(lines)}):\n  " + "\n  ".join(lines[:60]) + ("\n  ..." if len(lines) > 60 else "")


@pytest.fixture(scope="module")
def findings() -> Findings:
    return check(SRC, TEMPLATES, LOCALE)


def test_every_template_is_marked_or_listed_not_yet() -> None:
    names = {t.name for t in TEMPLATES.glob("*.html")}
    marked = {t.name for t in TEMPLATES.glob("*.html") if template_domain(t) is not None}
    neither = sorted(names - marked - NOT_YET)
    assert not neither, (
        f"templates with no '{{# i18n: <domain> #}}' first line: {neither} (mark them; see docs/translating.md)"
    )
    done = sorted(marked & NOT_YET)
    assert not done, f"marked templates still listed in NOT_YET: {done} (take them out of the list)"
    gone = sorted(NOT_YET - names)
    assert not gone, f"NOT_YET lists templates that do not exist: {gone}"


def test_every_message_is_translated(findings: Findings) -> None:
    assert not findings.missing, _report("messages without a German or French translation", findings.missing)


def test_no_stale_translations(findings: Findings) -> None:
    assert not findings.stale, _report("translations no source uses any more", findings.stale)


def test_translations_keep_their_placeholders(findings: Findings) -> None:
    assert not findings.placeholders, _report("translations whose placeholders differ", findings.placeholders)


def test_a_plural_has_as_many_forms_as_its_catalogue_says() -> None:
    """A plural entry with a form past the header's ``nplurals`` (an empty ``msgstr[2]`` a tool wrote from CLDR's
    three French forms) makes every reading of the catalogue warn, at each start of the site."""
    extra = []
    for po in sorted(LOCALE.glob("*/LC_MESSAGES/*.po")):
        text = po.read_text(encoding="utf-8")
        header = re.search(r"nplurals=(\d+)", text)
        assert header, f"{po}: no Plural-Forms header"
        n = int(header.group(1))
        for m in re.finditer(r"^msgstr\[(\d+)\]", text, re.M):
            if int(m.group(1)) >= n:
                extra.append(f"{po.relative_to(LOCALE)} line {text.count(chr(10), 0, m.start()) + 1}: {m.group(0)}")
    assert not extra, _report("plural forms past the catalogue's nplurals", extra)


def test_a_message_is_translated_alike_in_every_domain(findings: Findings) -> None:
    """The catalogues of a language are merged into one, so a message translated two ways shows one of them
    everywhere. Translate it alike, or, where the English means two things ("Share": a verb, a noun), give each
    use its context: ``pgettext("verb", "Share")`` in Python and templates alike."""
    assert not findings.conflicts, _report(
        "one message translated differently in two domains (translate it alike, or give each use a context: "
        'pgettext("verb", "Share"))',
        findings.conflicts,
    )


def test_marked_templates_show_no_unmarked_text(findings: Findings) -> None:
    assert not findings.lint, _report("visible text outside the markers in marked templates", findings.lint)


def test_python_domains_are_named_by_their_modules() -> None:
    """A module that marks text (``words(request).gettext("...")``, ``translations(lang).ngettext(...)``) names
    its domain: otherwise its messages would be in no catalogue, and shown in English to everyone."""
    unnamed = []
    for m in sorted(SRC.rglob("*.py")):
        text = m.read_text(encoding="utf-8")
        if re.search(r"gettext\(|\b_\(", text) and module_domain(m) is None and next(extract_file(m), None):
            unnamed.append(str(m.relative_to(SRC)))
    assert not unnamed, f"modules that translate text but name no I18N_DOMAIN: {unnamed}"


# --------------------------------------------------------------------------------------------------
# The check itself can fail


def _tree(tmp_path: Path, template: str, po: dict[str, str], module: str | None = None) -> tuple[Path, Path, Path]:
    src, templates, locale = tmp_path / "src", tmp_path / "templates", tmp_path / "locale"
    templates.mkdir(parents=True)
    src.mkdir()
    (templates / "page.html").write_text(template, encoding="utf-8")
    if module is not None:
        (src / "mod.py").write_text(module, encoding="utf-8")
    for lang, text in po.items():
        (locale / lang / "LC_MESSAGES").mkdir(parents=True)
        (locale / lang / "LC_MESSAGES" / "site.po").write_text(text, encoding="utf-8")
    return src, templates, locale


def _po(lang: str, *pairs: tuple[str, str]) -> str:
    body = "".join(f'\nmsgid "{i}"\nmsgstr "{s}"\n' for i, s in pairs)
    return (
        f'msgid ""\nmsgstr ""\n"Language: {lang}\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n'
        f'"Plural-Forms: nplurals=2; plural=(n != 1);\\n"\n' + body
    )


GOOD = '{# i18n: site #}\n<p title="{{ _("Orders") }}">{{ _("Hello %(name)s", name=who) }}</p>\n'


def test_check_passes_a_complete_tree(tmp_path: Path) -> None:
    tree = _tree(tmp_path, GOOD, {"de": _po("de", ("Orders", "Befehle"), ("Hello %(name)s", "Hallo %(name)s"))})
    assert check(*tree, languages=["de"]).ok()


def test_check_finds_a_missing_translation(tmp_path: Path) -> None:
    tree = _tree(tmp_path, GOOD, {"de": _po("de", ("Orders", "Befehle"))})
    got = check(*tree, languages=["de"])
    assert got.missing == ["de/site.po: page.html:2: 'Hello %(name)s'"]


def test_check_finds_a_stale_translation_and_a_wrong_placeholder(tmp_path: Path) -> None:
    po = _po("de", ("Orders", "Befehle"), ("Hello %(name)s", "Hallo %(nom)s"), ("Gone", "Weg"))
    got = check(*_tree(tmp_path, GOOD, {"de": po}), languages=["de"])
    assert got.stale == ["de/site.po: 'Gone' is used by no file of domain site"]
    assert len(got.placeholders) == 1 and "%(nom)s" in got.placeholders[0]


def test_check_finds_a_python_message(tmp_path: Path) -> None:
    module = 'I18N_DOMAIN = "site"\n\ndef f(w):\n    return w.gettext("Your orders were sent")\n'
    po = _po("de", ("Orders", "Befehle"), ("Hello %(name)s", "Hallo %(name)s"))
    got = check(*_tree(tmp_path, GOOD, {"de": po}, module), languages=["de"])
    assert got.missing == ["de/site.po: mod.py:4: 'Your orders were sent'"]


def test_check_finds_one_message_translated_two_ways_unless_a_context_tells_them_apart(tmp_path: Path) -> None:
    src, templates, locale = _tree(
        tmp_path, '{# i18n: site #}\n<p>{{ _("Share") }}</p>\n', {"de": _po("de", ("Share", "Anteil"))}
    )
    (templates / "other.html").write_text('{# i18n: games #}\n<b>{{ _("Share") }}</b>\n', encoding="utf-8")
    (locale / "de" / "LC_MESSAGES" / "games.po").write_text(_po("de", ("Share", "Teilen")), encoding="utf-8")
    got = check(src, templates, locale, languages=["de"])
    assert got.conflicts == ["de: 'Share' is 'Teilen' in games.po but 'Anteil' in site.po"]
    (templates / "other.html").write_text(
        '{# i18n: games #}\n<b>{{ pgettext("verb", "Share") }}</b>\n', encoding="utf-8"
    )
    po = _po("de") + '\nmsgctxt "verb"\nmsgid "Share"\nmsgstr "Teilen"\n'
    (locale / "de" / "LC_MESSAGES" / "games.po").write_text(po, encoding="utf-8")
    assert check(src, templates, locale, languages=["de"]).ok()


def test_lint_finds_text_outside_the_markers() -> None:
    page = (
        '{# i18n: site #}\n<h1>{{ _("Orders") }}</h1>\n<p>Deadline {{ d }}</p>\n'
        '<a aria-label="Close" title="{{ _("Close") }}">&times;</a>\n<code>A PAR - BUR</code>\n'
        '{% trans %}Welcome back{% endtrans %}\n<input type="submit" value="Send">\n<img alt="">\n'
    )
    assert unmarked_text(page) == [(3, "Deadline …"), (4, '<a aria-label="Close">'), (7, '<input value="Send">')]


def test_lint_leaves_programs_and_names_alone() -> None:
    page = (
        '<script type="application/json">{"a": "b"}</script><style>p { color: red }</style><p>dippouch API</p>'
        '<a href="/api/open">/api/open</a> <p>https://example.org/x</p>'
    )
    assert unmarked_text(page) == []


# --------------------------------------------------------------------------------------------------
# For translators: bring a catalogue up to date with its files


def update_catalogue(domain: str, lang: str) -> tuple[int, int]:
    """Add the messages of ``domain`` that ``lang``'s catalogue lacks (untranslated, for a translator to fill
    in) and drop those no file uses any more; the translations kept as they are. (added, dropped)."""
    messages = extracted(domains(SRC, TEMPLATES).get(domain, []))
    # A new catalogue's header (Language, Plural-Forms from the language's CLDR data) is Babel's.
    cat = catalogue(LOCALE, lang, domain) or Catalog(locale=lang, domain=domain, project="dippouch")
    added = dropped = 0
    for (mid, ctx), m in messages.items():
        if cat.get(mid, ctx) is None:
            cat.add((mid, m.plural) if m.plural else mid, ("", "") if m.plural else "", context=ctx)
            added += 1
    for entry in list(cat):
        if (
            entry.id
            and ((entry.id[0] if isinstance(entry.id, tuple | list) else entry.id), entry.context) not in messages
        ):
            cat.delete(entry.id, entry.context)
            dropped += 1
    path = LOCALE / lang / "LC_MESSAGES" / f"{domain}.po"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as f:
        write_po(f, cat, width=120, sort_output=True)
    return added, dropped


if __name__ == "__main__":
    import sys

    if len(sys.argv) < 3 or sys.argv[1] != "update":
        sys.exit("usage: python tests/project/test_i18n_catalogues.py update DOMAIN [LANG ...]")
    for lang in sys.argv[3:] or TRANSLATED:
        got = update_catalogue(sys.argv[2], lang)
        print(f"{lang}/{sys.argv[2]}.po: {got[0]} messages added (to translate), {got[1]} no longer used dropped")
