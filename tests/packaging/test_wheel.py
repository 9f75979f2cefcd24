"""pbem as its operators install it: the built wheel, in a fresh virtual environment outside
the repository, run from another directory with nothing but its own files.

The wheel is built from a copy of the source tree (nothing is written into the checkout).
Its dependencies come from a wheelhouse downloaded once per set of requirements into the
test virtual environment (``<venv>/wheelhouse/``), then installed with ``--no-index``: the
first run needs the package index, later runs none.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import shutil
import socket
import subprocess
import sys
import time
import tomllib
import urllib.request
import zipfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
#: What the wheel is built from: the project file, the README it names, and the packages.
SHIPPED = ("engine", "pbem", "web", "migrations", "config", "docs")
SOURCE_FILES = ("pyproject.toml", "README.md")
SKIP = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build", "dist")


def _pip(*args: str, cwd: Path | None = None) -> str:
    result = subprocess.run(
        [sys.executable, "-m", "pip", "--disable-pip-version-check", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
    )
    assert result.returncode == 0, f"pip {' '.join(args)}:\n{result.stdout}\n{result.stderr}"
    return result.stdout


def _requirements() -> list[str]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    return sorted(project["build-system"]["requires"] + project["project"]["dependencies"])


def _wheelhouse(requirements: Sequence[str]) -> Path:
    """The dependencies' wheels, downloaded once for these requirements on this Python."""
    key = hashlib.sha256(
        json.dumps([requirements, platform.python_version(), sys.platform]).encode()
    ).hexdigest()[:16]
    home = Path(sys.prefix) / "wheelhouse" if sys.prefix != sys.base_prefix else None
    if home is None:  # not in a virtual environment: keep it beside pip's own cache
        home = Path.home() / ".cache" / "pbem-wheelhouse"
    house = home / key
    if not (house / "complete").exists():
        partial = home / f"{key}.{os.getpid()}.partial"
        shutil.rmtree(partial, ignore_errors=True)
        _pip("download", "--quiet", "--only-binary=:all:", "--dest", str(partial), *requirements)
        (partial / "complete").write_text("\n".join(requirements) + "\n")
        try:
            partial.rename(house)
        except OSError:  # another run finished the same wheelhouse first
            shutil.rmtree(partial, ignore_errors=True)
    return house


@dataclass
class Installed:
    venv: Path
    wheel: Path
    source: Path
    site: Path  # the directory the commands run in: not the repository, not the venv
    env: dict[str, str]
    seconds: dict[str, float]

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        result = subprocess.run(
            [str(self.venv / "bin" / args[0]), *args[1:]],
            cwd=self.site,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        if check:
            assert result.returncode == 0, f"{args}:\n{result.stdout}\n{result.stderr}"
        return result


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    seconds: dict[str, float] = {}
    started = time.monotonic()
    house = _wheelhouse(_requirements())
    seconds["wheelhouse"] = time.monotonic() - started

    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"
    source.mkdir()
    for name in SOURCE_FILES:
        shutil.copy2(REPO / name, source / name)
    for name in SHIPPED:
        shutil.copytree(REPO / name, source / name, ignore=SKIP)
    dist = work / "dist"
    started = time.monotonic()
    # --isolated: no user or site pip configuration; the build backend comes from the house.
    _pip(
        "--isolated", "wheel", "--quiet", "--no-deps", "--no-index", "--find-links", str(house),
        "--wheel-dir", str(dist), str(source),
    )  # fmt: skip
    seconds["build"] = time.monotonic() - started
    (wheel,) = dist.glob("pbem-*.whl")

    venv = work / "venv"
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    _pip(
        "--isolated", "--python", str(venv / "bin" / "python"), "install", "--quiet",
        "--no-index", "--find-links", str(house), str(wheel),
    )  # fmt: skip
    seconds["install"] = time.monotonic() - started

    site = work / "site"
    site.mkdir()
    # Nothing of the test run leaks in: no PBEM_* settings, no PYTHONPATH, no venv of ours.
    env = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(work), "LANG": "C.UTF-8"}
    yield Installed(venv, wheel, source, site, env, seconds)


def test_the_wheel_holds_every_shipped_file_and_nothing_else(installed: Installed) -> None:
    with zipfile.ZipFile(installed.wheel) as wheel:
        names = {n for n in wheel.namelist() if ".dist-info/" not in n}
    expected = {
        str(path.relative_to(installed.source))
        for package in SHIPPED
        for path in (installed.source / package).rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }
    assert sorted(expected - names) == []  # e.g. a template or stylesheet left out
    assert {n.split("/")[0] for n in names} == set(SHIPPED)  # no tests/, bench/ ...


def test_the_installed_package_runs_from_another_directory(installed: Installed) -> None:
    # The code comes from the fresh environment, not the checkout.
    where = installed.run(
        "python", "-c", "import migrations, pbem, web; print(pbem.__file__, migrations.__file__)"
    ).stdout
    assert str(REPO) not in where and str(installed.venv) in where

    upgraded = installed.run("pbem", "db", "upgrade")
    assert re.search(r"database at \w+", upgraded.stdout), upgraded.stdout
    assert (installed.site / "var" / "pbem.db").is_file()  # the default settings' SQLite file

    demo = installed.run("pbem", "demo").stdout
    game_id = re.search(r"demo Lancelot game (\w+)", demo).group(1)  # type: ignore[union-attr]
    token = re.findall(r"token=(\S+)", demo)[0]

    notation = installed.run(
        "python", "-c", "from pbem.core.resources import document; print(document('mail'), end='')"
    ).stdout
    assert notation == (REPO / "docs" / "mail.md").read_text(encoding="utf-8")

    port = _free_port()
    server = subprocess.Popen(
        [str(installed.venv / "bin" / "pbem"), "serve", "--port", str(port)],
        cwd=installed.site,
        env=installed.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        game = _get_json(f"{base}/api/v1/games/{game_id}", token, server)
        assert game["version"] >= 1 and game["legal"], game
        with urllib.request.urlopen(f"{base}/", timeout=10) as page:  # a rendered template
            assert page.status == 200 and "<html" in page.read().decode().lower()
    finally:
        server.terminate()
        output, _ = server.communicate(timeout=20)
    assert "Traceback" not in output, output
    print(f"wheel test timings (s): {installed.seconds}")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get_json(url: str, token: str, server: subprocess.Popen[str]) -> dict[str, object]:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"})
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                assert response.status == 200
                document: dict[str, object] = json.loads(response.read())
                return document
        except OSError:
            if server.poll() is not None:
                pytest.fail(f"pbem serve ended: {server.communicate()[0]}")
            assert time.monotonic() < deadline, "pbem serve did not answer within 30 s"
            time.sleep(0.2)


def test_the_offline_verifier_runs_where_only_the_engine_is_installed(
    installed: Installed, tmp_path: Path
) -> None:
    """A player checks a bundle with the wheel alone: no Flask, no SQLAlchemy, no schema
    library — ``python -m pbem.audit.verify`` needs the engine and the standard library."""
    bare = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True)
    _pip(
        "--isolated", "--python", str(bare / "bin" / "python"), "install", "--quiet",
        "--no-deps", "--no-index", str(installed.wheel),
    )  # fmt: skip
    python = str(bare / "bin" / "python")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [python, *args],
            cwd=installed.site,
            env=installed.env,
            capture_output=True,
            text=True,
            timeout=120,
        )

    absent = run(
        "-c",
        "import importlib.util as u; print([m for m in ('flask', 'sqlalchemy', 'sqlmodel', "
        "'marshmallow', 'click') if u.find_spec(m)])",
    )
    assert absent.stdout.strip() == "[]", absent

    bundle = tmp_path / "bundle.json"
    bundle.write_text(_finished_bundle(tmp_path / "made"), encoding="utf-8")
    checked = run("-m", "pbem.audit.verify", str(bundle))
    assert checked.returncode == 0, checked.stderr
    assert "final scores:" in checked.stdout and checked.stdout.rstrip().endswith("OK")
    assert (
        str(bare) in run("-c", "import pbem.audit.verify; print(pbem.audit.verify.__file__)").stdout
    )
    # A folder of bundles in one call, under the short name too.
    (tmp_path / "season").mkdir()
    (tmp_path / "season" / "game.json").write_bytes(bundle.read_bytes())
    many = run("-m", "pbem.verify", str(tmp_path / "season"))
    assert many.returncode == 0, many.stderr
    assert many.stdout.startswith(f"ok      {tmp_path / 'season' / 'game.json'}: game ")
    assert "1 bundles: 1 ok, 0 FAILED;" in many.stdout

    forged = json.loads(bundle.read_text(encoding="utf-8"))
    forged["events"][3]["recorded_at"] += " "
    bundle.write_text(json.dumps(forged), encoding="utf-8")
    failed = run("-m", "pbem.audit.verify", str(bundle))
    assert failed.returncode == 1 and "FAILED at version 4:" in failed.stderr, failed


def _finished_bundle(folder: Path) -> str:
    """A finished Lancelot game's bundle, made by the service of this checkout."""
    import random

    import engine
    from pbem.app.bootstrap import build_service
    from pbem.app.config import Settings
    from pbem.audit.export import bundle_text, export_game
    from pbem.core.db import Database
    from pbem.core.migrate import upgrade

    folder.mkdir()
    url = f"sqlite:///{folder / 'pbem.db'}"
    db = Database(url)
    try:
        upgrade(db)
        settings = Settings(database_url=url, secret_key="test-only-secret", var_dir=str(folder))
        service = build_service(settings, db=db, registry=engine.REGISTRY, listeners=[])
        gid = service.create_game("lancelot", {}, [{"name": "A"}, {"name": "B"}]).id
        choose = random.Random(3)
        while not (loaded := service.load(gid)).finished and loaded.to_act:
            seat = min(loaded.to_act)
            action = choose.choice(loaded.legal(seat))
            service.submit(gid, seat, action, expected_version=loaded.version, channel="api")
        return bundle_text(export_game(db, gid))
    finally:
        db.dispose()
