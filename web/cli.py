"""The ``pbem`` console command: the service's commands (``pbem.cli``) and ``serve``.

``serve`` starts this web layer, and ``pbem`` never imports ``web`` (the layers point
``web -> pbem -> engine``), so the whole command is assembled here, in the outermost layer,
like the WSGI app that gunicorn loads from ``web.create_app``.
"""

from __future__ import annotations

import copy

import click

from pbem import cli as service_cli
from pbem.scheduler import serve_hook
from web import create_app

LOOPBACK = ("127.0.0.1", "localhost", "::1")


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=5000, show_default=True, type=int)
@service_cli.pass_context
def serve(obj: service_cli.Context, host: str, port: int) -> None:
    """Run the web service (development server; use gunicorn in production)."""
    app = create_app(service=obj.service)
    if obj.settings.dev_pages and host not in LOOPBACK:
        # /dev/mail shows every player's mail and replies for any seat: for one machine only.
        click.echo(
            f"warning: dev_pages is on, so anyone who reaches {host}:{port} can read every "
            "player's mail at /dev/mail and reply for any seat; set dev_pages = false",
            err=True,
        )
    # The embedded scheduler (mail relay, IMAP poll), unless mail.embedded_scheduler is off.
    stop_scheduler = serve_hook(obj.settings)
    click.echo(f"pbem serving on http://{host}:{port} (Ctrl+C to stop)")
    try:
        app.run(host=host, port=port, threaded=True, use_reloader=False)
    finally:
        stop_scheduler()


# A copy of the service's group with its own table of commands: importing this module
# leaves ``pbem.cli.main`` as it is.
main: click.Group = copy.copy(service_cli.main)
main.commands = {**service_cli.main.commands, "serve": serve}
