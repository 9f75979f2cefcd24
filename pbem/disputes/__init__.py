"""Disputes: a seat says an action of the log went wrong. Their events (``events``), the
commands that open, answer and resolve one (``commands``), what may be disputed and what a
ruling does (``rules``), when a seat may open one (``limits``), the reply words of the mails
(``replies``), the texts of the mails (``notices``), a dispute as the API and pages show it
(``display``), and the ``disputes`` read model with its reads (``projection``), and the mails
disputes cause (``mails``)."""
