"""The ``pbem`` console command: the service's commands (``pbem.cli.main``) and ``serve``.

``serve`` starts this web layer, and ``pbem`` never imports ``web`` (the layers point
``web -> pbem -> engine``), so the whole command is assembled here, in the outermost layer,
like the WSGI app that gunicorn loads from ``web.create_app``.
"""

from __future__ import annotations

import copy

import click

from pbem.cli import main as service_cli
from pbem.cli.support import WholeNumber


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=5000, show_default=True, type=WholeNumber("the port", 1, 65535))
@click.option(
    "--dev",
    is_flag=True,
    help="Serve the development pages (/dev/mail: every player's mail) on a loopback host.",
)
@service_cli.pass_context
def serve(obj: service_cli.Context, host: str, port: int, dev: bool) -> None:
    """Run the web service (development server; use gunicorn in production)."""
    # Here, not at the top: every other ``pbem`` command starts without Flask (pbem.cli.main).
    from pbem.app.scheduler import serve_hook
    from web import create_app
    from web.pages.devmail import DevPagesRefused

    settings = obj.settings.with_changes(dev_pages=True) if dev else obj.settings
    try:
        # Refused, before anything starts, when the development pages would be reachable
        # from other machines (web.pages.devmail.refuse_beyond_loopback).
        app = create_app(settings, service=obj.service, host=host)
    except DevPagesRefused as e:
        raise click.ClickException(str(e)) from None
    # The embedded scheduler (mail relay, IMAP poll), unless mail.embedded_scheduler is off.
    stop_scheduler = serve_hook(obj.settings)
    click.echo(f"pbem serving on http://{host}:{port} (Ctrl+C to stop)")
    try:
        app.run(host=host, port=port, threaded=True, use_reloader=False)
    finally:
        stop_scheduler()


# A copy of the service's group with its own table of commands: importing this module
# leaves ``pbem.cli.main.main`` as it is.
main: click.Group = copy.copy(service_cli.main)
main.commands = {**service_cli.main.commands, "serve": serve}
