"""Outbound mail: composing each seat's mail from its view (``compose``, ``templates/``), the
outbox written with the events as the features' mail planners plan them (``outbox``,
``mail_planners``), the relay that sends what is due over SMTP or into a folder
(``relay``, ``smtp``), safe headers and reply addresses."""
