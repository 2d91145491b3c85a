"""Bots that are other programs: ``cmd:COMMAND`` speaks docs/bot-protocol.md over a
pipe (:mod:`king.bots.external.bot`), and the engines it knows how to start and talk to
(:mod:`king.bots.external.engines`)."""
