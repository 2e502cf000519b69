"""compose.yaml, the Dockerfile, the nginx and Prometheus files and the systemd units hang together.

Docker is not available where these tests run, so the files are not started here; instead every
``dippouch`` command line in them is parsed by the real CLI (options that do not exist, or values that do
not parse, fail), and the names, ports and paths that tie the files together are checked against each other.
"""

from __future__ import annotations

import configparser
import importlib.util
import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import typer
import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "compose.yaml"
DIPPOUCH_SERVICES = ("web", "worker")


def _compose() -> dict[str, Any]:
    data = yaml.safe_load(COMPOSE.read_text())
    assert isinstance(data, dict)
    return data


def _parse(argv: list[str]) -> Any:
    """Parse a dippouch command line as the CLI would (its click context), without running it."""
    from dippouch.cli import app, register_commands

    register_commands()
    group: Any = typer.main.get_command(app)  # typer's own (vendored) click group
    name, *args = argv
    if name == "serve" and importlib.util.find_spec("dippouch.cli.serve") is None:
        pytest.skip("`dippouch serve` is not in this checkout yet (the web app)")
    root = group.context_class(group, info_name="dippouch")
    command = group.get_command(root, name)
    assert command is not None, f"no dippouch command {name!r}; commands: {sorted(group.list_commands(root))}"
    return command.make_context(name, list(args), parent=root)


def _port_option(ctx: Any, name: str) -> int:
    value = ctx.params[name]
    assert isinstance(value, int)
    return value


def test_compose_has_the_database_web_processes_workers_and_a_front_door() -> None:
    services = _compose()["services"]
    assert {"db", "web", "worker", "proxy"} <= set(services)
    db = services["db"]
    assert db["image"].startswith("postgres:")
    assert "healthcheck" in db
    env = db["environment"]
    for name in DIPPOUCH_SERVICES:
        svc = services[name]
        assert svc["build"] == "." and svc["image"] == "dippouch:local"
        assert svc["depends_on"]["db"]["condition"] == "service_healthy"
        assert svc["deploy"]["replicas"] >= 2
        url = svc["environment"]["DIPPOUCH_DATABASE_URL"]
        m = re.fullmatch(r"postgresql://(\w+):\$\{POSTGRES_PASSWORD:-(\w+)\}@db:5432/(\w+)", url)
        assert m, url
        assert m.group(1) == env["POSTGRES_USER"] and m.group(3) == env["POSTGRES_DB"]
        assert env["POSTGRES_PASSWORD"] == f"${{POSTGRES_PASSWORD:-{m.group(2)}}}"


def test_compose_worker_command_is_a_real_worker_command_line_with_its_health_port() -> None:
    worker = _compose()["services"]["worker"]
    ctx = _parse(worker["command"])
    port = _port_option(ctx, "metrics_port")
    assert ctx.params["metrics_host"] == "0.0.0.0"
    assert f"127.0.0.1:{port}/healthz" in " ".join(worker["healthcheck"]["test"])
    # A worker must get time to finish the phase in hand after SIGTERM.
    assert int(str(worker["stop_grace_period"]).rstrip("s")) >= 30


def test_compose_web_command_is_a_real_serve_command_line_that_leaves_deadlines_to_workers() -> None:
    services = _compose()["services"]
    web = services["web"]
    ctx = _parse(web["command"])
    port = _port_option(ctx, "port")
    assert ctx.params["host"] == "0.0.0.0"
    assert ctx.params["scheduler"] is False, "web processes must leave processing to the workers"
    assert f"127.0.0.1:{port}/healthz" in " ".join(web["healthcheck"]["test"])
    nginx = (ROOT / "deploy" / "nginx.conf").read_text()
    assert f"http://web:{port}" in nginx


def test_the_deployment_names_its_public_address_and_passes_no_forgeable_host() -> None:
    """Links come from DIPPOUCH_PUBLIC_URL in every dippouch process (workers mail links too); the proxy passes
    the asked-for name for the web processes to check and clears X-Forwarded-Host; Prometheus may read
    /metrics over the compose network, nobody may through the proxy (security review, finding 1)."""
    from dippouch.settings import Site, networks

    for name in DIPPOUCH_SERVICES:
        env = _compose()["services"][name]["environment"]
        default = re.fullmatch(r"\$\{DIPPOUCH_PUBLIC_URL:-(.+)\}", env["DIPPOUCH_PUBLIC_URL"])
        assert default, env["DIPPOUCH_PUBLIC_URL"]
        assert Site.at(default.group(1)).allows("localhost:8000")
        assert networks(env["DIPPOUCH_METRICS_FROM"], "DIPPOUCH_METRICS_FROM")
    nginx = (ROOT / "deploy" / "nginx.conf").read_text()
    assert "proxy_set_header Host $host;" in nginx and "$http_host" not in nginx
    assert 'proxy_set_header X-Forwarded-Host "";' in nginx
    assert re.search(r"location = /metrics \{\s*return 404;", nginx)
    guide = (ROOT / "docs" / "deployment.md").read_text()
    assert "DIPPOUCH_PUBLIC_URL=https://" in guide and "DIPPOUCH_ALLOWED_HOSTS" in guide


def test_files_compose_mounts_and_builds_exist() -> None:
    services = _compose()["services"]
    for svc in services.values():
        for volume in svc.get("volumes", []):
            source = volume.split(":", 1)[0]
            if source.startswith("./"):
                assert (ROOT / source).is_file(), f"{source} is mounted but missing"
    dockerfile = (ROOT / "Dockerfile").read_text()
    for line in dockerfile.splitlines():
        if line.startswith("COPY "):
            *sources, _ = line.split()[1:]
            for source in sources:
                assert (ROOT / source).exists(), f"the Dockerfile copies {source}, which is missing"
    assert 'ENTRYPOINT ["dippouch"]' in dockerfile
    assert 'pip install --no-cache-dir ".[postgres]"' in dockerfile
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert any(dep.startswith("psycopg") for dep in extras["postgres"])


def test_prometheus_scrapes_every_web_process_and_worker_on_their_ports() -> None:
    prom = yaml.safe_load((ROOT / "deploy" / "prometheus.yml").read_text())
    targets = {sd["names"][0]: sd["port"] for job in prom["scrape_configs"] for sd in job.get("dns_sd_configs", [])}
    services = _compose()["services"]
    assert targets["worker"] == _port_option(_parse(services["worker"]["command"]), "metrics_port")
    assert targets["web"] == _port_option(_parse(services["web"]["command"]), "port")


@pytest.mark.parametrize("unit", sorted(p.name for p in (ROOT / "deploy" / "systemd").glob("*.service")))
def test_systemd_units_run_real_command_lines(unit: str) -> None:
    cfg = configparser.ConfigParser(interpolation=None, strict=False)
    cfg.optionxform = str  # type: ignore[assignment,method-assign]
    cfg.read(ROOT / "deploy" / "systemd" / unit)
    argv = shlex.split(cfg["Service"]["ExecStart"].replace("%i", "9101"))
    assert argv[0].endswith("/bin/dippouch")
    ctx = _parse(argv[1:])
    assert cfg["Service"]["EnvironmentFile"] == "/etc/dippouch/dippouch.env"
    if argv[1] == "worker":
        assert cfg["Service"]["KillSignal"] == "SIGTERM" and int(cfg["Service"]["TimeoutStopSec"]) >= 30
        assert ctx.params["metrics_port"] == 9101
    assert "WantedBy" in cfg["Install"]


def test_the_command_check_refuses_a_misspelt_option() -> None:
    """The checks above can fail: a command line with a wrong option does not parse."""
    with pytest.raises(Exception, match="No such option: --metric-port") as e:
        _parse(["worker", "--metric-port", "9100"])
    assert type(e.value).__name__ == "NoSuchOption"


def test_behind_the_proxy_web_processes_tell_clients_apart() -> None:
    """compose.yaml's web processes sit behind nginx: without trusting its X-Forwarded-For every request
    would come from the proxy's address, and one client's failed sign-ins would lock every player out."""
    ctx = _parse(_compose()["services"]["web"]["command"])
    assert ctx.params["forwarded_allow_ips"], "web processes behind the proxy must read X-Forwarded-For"
    nginx = (ROOT / "deploy" / "nginx.conf").read_text()
    # The proxy sets the header to the peer's address, not appending to one the client may have forged.
    assert "proxy_set_header X-Forwarded-For $remote_addr;" in nginx
    assert "$proxy_add_x_forwarded_for" not in nginx


def test_serve_behind_a_proxy_limits_each_forwarded_client_on_its_own(tmp_path: Path) -> None:
    import os
    import socket
    import subprocess
    import time
    import urllib.error
    import urllib.request

    from workersupport import dippouch_command

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    db = f"sqlite:///{tmp_path / 'g.db'}"
    server = subprocess.Popen(
        [
            *dippouch_command(),
            "serve",
            "--db",
            db,
            "--port",
            str(port),
            "--no-scheduler",
            "--forwarded-allow-ips",
            "127.0.0.1",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        # No worker processes for expensive work: none of these requests uses them, and starting them (three
        # fresh interpreters importing the renderer) took most of this test's time beside the server's start.
        env={**os.environ, "DIPPOUCH_WORK_PROCESSES": "0"},
    )

    def sign_in(client: str) -> int:
        req = urllib.request.Request(f"http://127.0.0.1:{port}/k/not-a-key", headers={"X-Forwarded-For": client})
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return int(r.status)
        except urllib.error.HTTPError as e:
            return int(e.code)

    try:
        # Ready once it answers, not once it takes connections: it listens from the moment it says its address,
        # and a request made then waits for the app to start (seconds, more on a loaded machine).
        end = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5).close()
                break
            except OSError:
                assert time.monotonic() < end and server.poll() is None, "the server did not start"
                time.sleep(0.05)
        guesses = [sign_in("203.0.113.1") for _ in range(11)]
        assert guesses[:10] == [404] * 10 and guesses[10] == 429, guesses  # the guesser is stopped...
        assert sign_in("203.0.113.2") == 404  # ...and another player behind the same proxy is not
    finally:
        server.terminate()
        server.wait(30)


def test_the_image_has_what_png_and_pdf_maps_need() -> None:
    """cairosvg needs the Cairo library at run time and the maps letter with DejaVu: the slim Python image has
    neither, so without them the workers' Winter results lose their PDF map and the web its PNG/PDF downloads."""
    dockerfile = (ROOT / "Dockerfile").read_text()
    needed = re.findall(r"missing\+=\((\S+)\)", (ROOT / "scripts" / "map-packages").read_text())
    assert "libcairo2" in needed and "fonts-dejavu-core" in needed, needed
    installs = " ".join(line for line in dockerfile.replace("\\\n", " ").splitlines() if "apt-get install" in line)
    for package in ("libcairo2", "fonts-dejavu-core"):  # poppler-utils is for the tests only
        assert package in installs, f"the Dockerfile does not install {package}"
