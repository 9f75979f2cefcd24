"""The web layer: create_app(settings), JSON API, inbound-mail webhook, HTML pages."""
