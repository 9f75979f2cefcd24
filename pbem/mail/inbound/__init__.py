"""Inbound mail: the pipeline (``pipeline``) behind every door (webhook, IMAP poll, ``pbem
mail-in``, /dev/mail), reading a mail (``reading``; its headers ``header_fields``, its text
``body``, its kind ``classification``, the part of a reply its author wrote ``quotes`` and
``courtesy``), routing it (``routing``), the dispatch table of reply words (``reply_words``), the
answers and error replies, the outcome, recovery and retention of raw mail."""
