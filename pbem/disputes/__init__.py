"""Disputes: a seat says an action of the log went wrong; the commands, rules, mail lines and
notices (``commands``), when a seat may open one (``limits``), and the ``disputes`` read model
(``projection``)."""
