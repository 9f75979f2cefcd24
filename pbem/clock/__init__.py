"""The game clock: time controls (``time_control``), each seat's due time as a pure fold of the
log (``schedule``), the clock's events and commands (``events``, ``commands``, ``consent``), the
deadline move and the sweep (``deadline_moves``, ``sweep``), reminders and the daily digest,
players' preferences (time zone, digest), the ``game_clocks``/``deadlines`` read models
(``projection``), and the clock's mails: the lines of turn mails and the notices of its events
(``mail_news``), the notices of requests (``notices``) and its reply words (``replies``). The
service's time itself is ``pbem.core.time_source``."""
