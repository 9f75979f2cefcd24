"""The JSON API under ``/api/v1``: its blueprint and the games' routes (``routes``), the game
clock's (``clock``), disputes' (``disputes``), table talk's (``talk``) and the admin token's
(``admin``), the request and response schemas (``schemas``) and the strict reader of request
JSON (``json_input``).
"""
