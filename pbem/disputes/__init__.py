"""Disputes: a seat says an action of the log went wrong; the commands, rules, mail lines and
notices (``commands``), when a seat may open one (``limits``), the ``disputes`` read model
(``projection``), and the mails disputes cause (``mails``)."""
