"""Slash-command output fits the terminal (asserted on the pyte-rendered screen of a real pty).

At 40 columns the terminal's own hard wrap used to cut the output of /search, /docs, /vs list,
/history and the error lines mid-word, and their continuation lines started at column 0. Now
every line ends before the last column, words wrap whole, continuation lines keep the entry's
indent, a long token with no space (a file name) is folded but kept whole, and untrusted text
(file names, snippets, questions) reaches the screen without its escape sequences.
/conversations lists the newest 20 with a line saying how many more there are.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pexpect
import pyte
import pytest

from forge_cli.conversations.model import Conversation, Turn
from forge_cli.conversations.store import ConversationStore

pytestmark = pytest.mark.pty

_TESTS = Path(__file__).resolve().parents[1]
if str(_TESTS) not in sys.path:
    sys.path.insert(0, str(_TESTS))

from helpers.terminal import TerminalSpawn  # type: ignore[import-not-found]  # noqa: E402
from helpers.testhook import FORGE_COMMAND  # type: ignore[import-not-found]  # noqa: E402

ROWS = 150
READY = "\x1b[?2004h"  # the line editor is reading again
LONG_NAME = "a_really_long_file_name_without_any_spaces_at_all_for_folding_tests.md"
INSTALL = (
    "To install the zebra service, run the installer with administrator rights, then set "
    "the listening port in its configuration file."
)
WALRUS = "The walrus index is rebuilt every night by a cron job that reads the zebra corpus."
EVIL_NAME = "evil\x1b[31mred.md"
EVIL_TEXT = (
    "The zebra \x1b[31mred\x1b[0m alarm \x1b]52;c;eA==\x07 rings when the zebra port closes."
)
QUESTION = "how do I configure the zebra service so that it listens on another port today?"
ANSWER = (
    "The zebra service listens on port 4242; its configuration lives in "
    "/etc/zebra/zebra-service-configuration-directory/settings.toml which you can edit."
)


class Pty:
    """``forge chat`` on a pseudo-terminal, its screen rendered by pyte."""

    def __init__(self, args: list[str], env: dict[str, str], columns: int) -> None:
        self.columns = columns
        self.screen = pyte.Screen(columns, ROWS)
        self.stream = pyte.ByteStream(self.screen)
        self.child = TerminalSpawn(
            FORGE_COMMAND[0], [*FORGE_COMMAND[1:], *args], env=env, dimensions=(ROWS, columns)
        )
        self.transcript = ""

    def _read_until(self, done: Callable[[], bool], what: str) -> None:
        deadline = time.monotonic() + 30
        while not done():
            if time.monotonic() > deadline:
                raise AssertionError(f"{what} never came; screen:\n" + "\n".join(self.rows()))
            try:
                data = self.child.read_nonblocking(65536, timeout=1.0)
            except pexpect.TIMEOUT:
                continue
            self.stream.feed(data)
            self.transcript += data.decode("utf-8", "replace")

    def ready(self) -> None:
        self._read_until(lambda: READY in self.transcript, "the prompt")

    def run(self, command: str) -> list[str]:
        """Send ``command``; the screen rows it printed (up to the next prompt)."""
        since = len(self.transcript)
        self.child.send(command + "\r")
        self._read_until(lambda: READY in self.transcript[since:], f"the prompt after {command}")
        rows = self.rows()
        assert len(f"forge> {command}") < self.columns  # the command line takes one row
        start = 1 + max(i for i, row in enumerate(rows) if row == f"forge> {command}")
        end = next(i for i in range(start, len(rows)) if rows[i].startswith("forge>"))
        return rows[start:end]

    def rows(self) -> list[str]:
        return [row.rstrip() for row in self.screen.display]

    def colours(self) -> set[str]:
        """Every foreground colour on the screen (an escape sequence let through shows here)."""
        return {char.fg for line in self.screen.buffer.values() for char in line.values()}

    def close(self) -> None:
        self.child.send("/exit\r")
        self.child.expect(pexpect.EOF, timeout=15)
        self.child.close()


def _environment(root: Path, base: dict[str, str]) -> dict[str, str]:
    env = {
        **base,
        "TERM": "xterm",
        "FORGE_DATA_DIR": str(root / "data"),
        "FORGE_CONFIG": str(root / "config.toml"),
        "HOME": str(root),
    }
    env.pop("FORGE_TEST_BACKEND", None)
    return env


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data dir with a vector store "notes" and 27 saved conversations, built once per module
    (each test works on a copy: see ``home``)."""
    root = tmp_path_factory.mktemp("narrow")
    base = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("FORGE_", "OPENAI_", "XDG_")) and name != "KNOWLEDGE_FORGE_URL"
    }
    env = _environment(root, base)
    docs = root / "docs"
    docs.mkdir()
    (docs / LONG_NAME).write_text(f"# Install\n\n{INSTALL}\n")
    (docs / "walrus notes.txt").write_text(WALRUS + "\n")
    (docs / EVIL_NAME).write_text(EVIL_TEXT + "\n")
    subprocess.run(
        [*FORGE_COMMAND, "vs", "create", "notes", str(docs)],
        env=env,
        check=True,
        capture_output=True,
    )
    store = ConversationStore(root / "data" / "conversations")
    answer = [
        {
            "type": "message",
            "id": "m1",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": ANSWER, "annotations": []}],
        }
    ]
    now = time.time()
    for number in range(27):
        conversation = Conversation(api="local", id=f"c20260101-{number:08x}")
        conversation.add_turn(Turn(user=f"Question {number}: {QUESTION}", output=answer))
        conversation.add_turn(
            Turn(user="and \x1b[31mred\x1b[0m?", output=answer, status="interrupted")
        )
        conversation.updated_at = now - 60 * number  # number 0 is the newest
        store.save(conversation)
    return root / "data"


@pytest.fixture
def home(prepared: Path, tmp_path: Path) -> dict[str, str]:
    """This test's own copy of the prepared data dir (a test may add conversations)."""
    shutil.copytree(prepared, tmp_path / "data")
    return _environment(tmp_path, dict(os.environ))


@pytest.fixture
def chat(home: dict[str, str]) -> Iterator[Callable[[int], Pty]]:
    opened: list[Pty] = []

    def start(columns: int) -> Pty:
        term = Pty(["chat", "--vs", "notes"], home, columns)
        opened.append(term)
        term.ready()
        return term

    yield start
    for term in opened:
        if term.child.isalive():
            term.close()


def _fits(rows: list[str], columns: int, *starts: str) -> None:
    """Every row ends before the last column (no hard wrap by the terminal) and starts with one
    of ``starts`` (an entry's first line, or a continuation keeping its indent)."""
    assert rows, "no output"
    for row in rows:
        assert len(row) < columns, f"{row!r} reaches the edge"
        assert row.startswith(starts), f"{row!r} lost its indent"


def _whole_words(rows: list[str], text: str, room: int) -> None:
    """Each word of ``text`` that fits a line (``room`` cells) is on the screen uncut."""
    shown = {word for row in rows for word in row.split()}
    cut = [word for word in text.split() if len(word) <= room and word not in shown]
    assert not cut, f"words cut or lost: {cut}\n" + "\n".join(rows)


def _unfold(rows: list[str]) -> str:
    return "".join(row.strip() for row in rows)


@pytest.mark.parametrize("columns", [40, 100, 200])
def test_search_docs_vs_list_and_an_error_hint_fit(
    chat: Callable[[int], Pty], columns: int
) -> None:
    term = chat(columns)

    hits = term.run("/search install zebra service")
    _fits(hits, columns, "[1] ", "[2] ", "[3] ", "    ")
    titles = [i for i, row in enumerate(hits) if row.startswith("[")]
    assert len(titles) == 3
    _whole_words(hits, INSTALL, columns - 5)
    _whole_words(hits, WALRUS, columns - 5)
    assert LONG_NAME in _unfold(hits)  # folded at a narrow width, never cut short
    assert "evil\\x1b[31mred.md" in _unfold(hits)  # the escape is shown, not obeyed

    docs = term.run("/docs")
    _fits(docs, columns, "  file_", "      ")
    assert LONG_NAME in _unfold(docs)
    assert "walrus notes.txt" in " ".join(docs)
    if columns == 40:  # the name goes under its id, indented
        at = next(i for i, row in enumerate(docs) if "walrus" in row)
        assert docs[at] == "      walrus notes.txt"
        assert docs[at - 1].startswith("  file_")

    stores = term.run("/vs list")
    _fits(stores, columns, "Active: notes", " * vs_", "   vs_", "      ")
    assert any(row.strip() == "notes (3 files)" or "notes (3 files)" in row for row in stores)

    error = term.run("/frobnicate")
    _fits(error, columns, "error: ", "       ")
    _whole_words(error, "error: unknown command /frobnicate (hint: type /help for the list)", 30)

    assert term.colours() == {"default"}  # no colour from a file name or a snippet
    term.close()


def test_history_fits_under_its_labels(chat: Callable[[int], Pty]) -> None:
    term = chat(40)
    term.run("/load c20260101-00000000")
    history = term.run("/history")
    _fits(history, 40, "you> ", "ai>  ", "     ")
    _whole_words(history, f"Question 0: {QUESTION}", 34)
    # The answer is a preview in two lines, cut at a word ("…"), its status mark kept.
    answers = [i for i, row in enumerate(history) if row.startswith("ai>  ")]
    assert len(answers) == 2
    for at in answers:
        assert all(row.startswith("you> ") for row in history[at + 2 : at + 3])  # 2 lines
        preview = " ".join(row[5:] for row in history[at : at + 2])
        assert preview.endswith(("…", "… [interrupted]"))
        assert ANSWER.startswith(preview.split("…")[0])
    assert history[answers[1] + 1].endswith("… [interrupted]")
    assert "and \\x1b[31mred\\x1b[0m?" in " ".join(history)
    assert term.colours() == {"default"}
    term.close()


@pytest.mark.parametrize("columns", [40, 100])
def test_conversations_fit_and_the_list_is_bounded(
    chat: Callable[[int], Pty], columns: int
) -> None:
    term = chat(columns)
    listed = term.run("/conversations")
    _fits(listed, columns, "  c20260101-", "    ", "... and 7 more")
    shown = [row.split()[0] for row in listed if row.startswith("  c20260101-")]
    assert shown == [f"c20260101-{n:08x}" for n in range(20)]  # the newest 20, newest first
    footer = " ".join(" ".join(listed[-3:]).split())
    assert "... and 7 more conversations (/conversations all lists every one" in footer
    title = f"Question 0: {QUESTION}"[:59].rsplit(" ", 1)[0]  # the title is cut at 59 + "…"
    _whole_words(listed, title, columns - 12)

    everything = term.run("/conversations all")
    assert len([row for row in everything if row.startswith("  c20260101-")]) == 27
    assert not any("more conversations" in row for row in everything)
    assert len([row for row in term.run("/conversations 3") if row.startswith("  c2026")]) == 3
    assert term.run("/conversations few") == ["error: usage: /conversations [N|all]"]
    term.close()


@pytest.mark.parametrize("columns", [40, 100])
def test_history_after_resuming_shows_plain_previews(home: dict[str, str], columns: int) -> None:
    """Retrieval-only answers (no model) used to show in /history as raw Markdown ("From
    **file**: >") behind the fixed "Retrieval-only answer …" sentence; now each answer is plain
    text starting with the passage it quotes, in two lines at most."""
    for args in (["ask"], ["ask", "-c"]):
        subprocess.run(
            [*FORGE_COMMAND, *args, "--vs", "notes", "how do I install the zebra service?"],
            env=home,
            check=True,
            capture_output=True,
        )
    term = Pty(["chat", "-c"], home, columns)
    term.ready()
    history = term.run("/history")
    term.close()
    _fits(history, columns, "you> ", "ai>  ", "     ")
    shown = " ".join(row[5:] for row in history)  # without the "you> " / "ai>  " labels
    for boilerplate in ("**", "`", ">", "Retrieval-only", "From ", "To get written answers"):
        assert boilerplate not in shown, f"{boilerplate!r} in\n" + "\n".join(history)
    answers = [i for i, row in enumerate(history) if row.startswith("ai>  ")]
    assert len(answers) == 2
    for at in answers:
        assert history[at].startswith("ai>  To install the zebra service")
        entry = history[
            at : next(
                (i for i in range(at + 1, len(history)) if history[i].startswith("you> ")),
                len(history),
            )
        ]
        assert 1 <= len(entry) <= 2, entry  # one or two lines, not the whole answer
