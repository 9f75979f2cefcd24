"""Command-line start-up benchmark (not a test): the CPU time (user + sys) of ``pbem --help``,
``pbem show GAME`` and ``pbem mail-in`` of one reply, each a process of its own as a shell,
cron or an MTA's pipe starts it.

Each figure is the median over ``--runs`` runs of the CPU time the child process used
(``resource.getrusage(RUSAGE_CHILDREN)`` before and after it), so the load other processes
put on the machine changes it less than wall time. With ``--base DIR`` the same commands run
on the code in ``DIR`` too (a ``git worktree`` of an older commit, put first on
``PYTHONPATH``, with this checkout's interpreter and installed libraries), alternated run by
run with this checkout's, and the ratio of the medians is printed.

``mail-in`` is timed on a real reply: a Lancelot game between two addresses (each accepts its
invitation by a reply through ``pbem mail-in``), the mails sent into the mail folder by
``pbem mail relay``, and for every timed run the newest mail to the seat to act answered with
a legal move (read from ``pbem show --seat N --json``). Only ``mail-in`` is timed: it stores
the raw message, reads it, applies the move and commits (the outbox mails in the same
transaction). A game that ends is replaced by a new one. Each tree has its own SQLite file.

    .venv/bin/python bench/cli_bench.py                          # this checkout, 7 runs each
    git worktree add /tmp/clifast-base 58033c2
    .venv/bin/python bench/cli_bench.py --base /tmp/clifast-base --runs 9
    .venv/bin/python bench/cli_bench.py --only help --runs 15

The children write and read bytecode (``__pycache__``) as an installed package does, even
when ``PYTHONDONTWRITEBYTECODE`` is set here; ``--no-bytecode`` keeps the variable, and then
every start compiles each module it imports from source.

Targets (medians): ``pbem --help`` <= 0.25 s CPU; ``pbem mail-in`` of one reply <= 0.5 s CPU.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import secrets
import statistics
import subprocess
import sys
import tempfile
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The console script of this checkout's environment: its interpreter and libraries run both
# trees; PYTHONPATH chooses whose code it imports.
PBEM = Path(sys.executable).parent / "pbem"
COMMANDS = ("help", "show", "mail-in")


def _cpu_of(argv: list[str], env: dict[str, str], stdin: bytes = b"") -> tuple[float, bytes]:
    """The CPU seconds (user + sys) the command used, and its standard output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(argv, env=env, input=stdin, capture_output=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(
            f"{' '.join(argv)} failed ({done.returncode}):\n{done.stdout.decode()}"
            f"{done.stderr.decode()}"
        )
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, done.stdout


class Tree:
    """One checkout's code, with a database and mail folder of its own."""

    def __init__(self, name: str, code: Path, work: Path, *, bytecode: bool = True) -> None:
        self.name = name
        var = work / name
        var.mkdir(parents=True)
        self.mail_dir = var / "mail"
        environ = dict(os.environ)
        if bytecode:
            # As installed: pip writes each module's bytecode when it installs the package, so
            # a command reads it instead of compiling the source at every start.
            environ.pop("PYTHONDONTWRITEBYTECODE", None)
        self.env = {
            **environ,
            "PYTHONPATH": str(code),
            "PBEM_DATABASE_URL": f"sqlite:///{var / 'pbem.db'}",
            "PBEM_VAR_DIR": str(var),
            "PBEM_SECRET_KEY": "cli-bench-secret-0123456789abcdef",
            "PBEM_MAIL_REPLY_DOMAIN": "reply.pbem.bench",
            "PBEM_MAIL_EMBEDDED_SCHEDULER": "false",
            # Many games between the same two addresses: no limit on invitations.
            "PBEM_INVITATIONS_PER_ADDRESS_PER_DAY": "0",
            "PBEM_INVITATIONS_GAMES_PER_ADDRESS_PER_DAY": "0",
            "PBEM_INVITATIONS_PER_REQUESTER_PER_DAY": "0",
        }
        self.game = ""
        self.last_mail: dict[str, EmailMessage] = {}
        self.seen: set[str] = set()
        self.times: dict[str, list[float]] = {c: [] for c in COMMANDS}
        self.pbem("db", "upgrade")
        self.new_game()
        # Untimed: the bytecode of every module the commands import written once.
        for command in COMMANDS:
            self.run(command)
        self.times = {c: [] for c in COMMANDS}

    def pbem(self, *args: str, stdin: bytes = b"") -> tuple[float, str]:
        cpu, out = _cpu_of([str(PBEM), *args], self.env, stdin)
        return cpu, out.decode()

    def relayed(self) -> list[EmailMessage]:
        """The mails the relay wrote since the last call, oldest first."""
        self.pbem("mail", "relay")
        new = sorted(
            (p for p in self.mail_dir.glob("*.eml") if p.name not in self.seen),
            key=lambda p: p.stat().st_mtime_ns,
        )
        self.seen.update(p.name for p in new)
        return [message_from_bytes(p.read_bytes(), policy=policy.default) for p in new]  # type: ignore[misc]

    def new_game(self) -> None:
        _, out = self.pbem(
            "new-game", "lancelot", "--player", "Ann <ann@example.org>",
            "--player", "Bob <bob@example.org>",
        )  # fmt: skip
        self.game = re.search(r"game (\w+) \(lancelot\)", out).group(1)  # type: ignore[union-attr]
        # Both addresses are new here: their first mails are invitations, accepted by reply.
        for mail in self.relayed():
            if self.game in str(mail["Subject"]):
                self.pbem("mail-in", stdin=_reply(mail, "accept"))

    def next_reply(self) -> bytes:
        """A reply playing a legal move for the seat to act, to the newest mail it got."""
        mails = self.relayed()
        doc = json.loads(self.pbem("show", self.game, "--json")[1])
        if doc.get("finished"):
            self.new_game()
            return self.next_reply()
        seat = doc["to_act"][0]
        address = ("ann@example.org", "bob@example.org")[seat]
        legal = json.loads(self.pbem("show", self.game, "--seat", str(seat), "--json")[1])["legal"]
        for m in mails:
            if self.game in str(m["Subject"]):
                self.last_mail[str(m["To"].addresses[0].addr_spec)] = m
        return _reply(self.last_mail[address], legal[0])

    def run(self, command: str) -> None:
        if command == "help":
            cpu, out = self.pbem("--help")
            assert "mail-in" in out, out
        elif command == "show":
            cpu, out = self.pbem("show", self.game)
            assert self.game in out, out
        else:
            reply = self.next_reply()
            cpu, out = self.pbem("mail-in", stdin=reply)
            assert out.startswith("applied"), out
        self.times[command].append(cpu)


def _reply(original: EmailMessage, text: str) -> bytes:
    to = original["Reply-To"].addresses[0].addr_spec
    sender = original["To"].addresses[0].addr_spec
    body = original.get_body(("plain",))
    quoted = "\n".join("> " + line for line in body.get_content().splitlines()) if body else ""
    return (
        f"From: <{sender}>\r\nTo: <{to}>\r\nSubject: Re: {original['Subject']}\r\n"
        f"Message-ID: <bench.{secrets.token_hex(8)}@client.example>\r\n"
        f"In-Reply-To: {original['Message-ID']}\r\nContent-Type: text/plain; charset=utf-8\r\n"
        f"\r\n{text}\r\n\r\nOn Monday, pbem wrote:\r\n{quoted}\r\n"
    ).encode()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="timed runs per command and tree")
    parser.add_argument("--base", type=Path, default=None, help="an older checkout to compare")
    parser.add_argument("--only", choices=COMMANDS, action="append", default=None)
    parser.add_argument(
        "--no-bytecode",
        dest="bytecode",
        action="store_false",
        help="keep PYTHONDONTWRITEBYTECODE if it is set (every module compiled at each start)",
    )
    args = parser.parse_args()
    commands = args.only or list(COMMANDS)
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} at start")
    with tempfile.TemporaryDirectory(prefix="cli-bench-") as work:
        trees = [Tree("this", ROOT, Path(work), bytecode=args.bytecode)]
        if args.base is not None:
            trees.append(Tree("base", args.base.resolve(), Path(work), bytecode=args.bytecode))
        for command in commands:
            for run in range(args.runs):
                # Alternated, and which tree goes first alternates too.
                for tree in trees if run % 2 == 0 else trees[::-1]:
                    tree.run(command)
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} at end")
    cached = "bytecode cached" if args.bytecode else "PYTHONDONTWRITEBYTECODE as set"
    print(f"CPU seconds (user + sys), median of {args.runs} runs [min-max], {cached}")
    for command in commands:
        medians = []
        for tree in trees:
            times = tree.times[command]
            medians.append(statistics.median(times))
            print(
                f"  pbem {command if command != 'help' else '--help':<8} {tree.name:<5} "
                f"{medians[-1]:6.3f} s  [{min(times):.3f}-{max(times):.3f}]"
            )
        if len(medians) == 2:
            print(f"  pbem {command:<8} base/this {medians[1] / medians[0]:5.2f}x")


if __name__ == "__main__":
    main()
