"""The composition root: ``config.py`` reads the settings, ``service.py`` is the application
service every entry point (pages, API, mail, command line, scheduler) calls, ``bootstrap.py``
builds the features into it from the settings, and ``scheduler.py`` runs the background jobs
(the clock's sweep, the outbound relay, the inbound poll, the digest)."""
