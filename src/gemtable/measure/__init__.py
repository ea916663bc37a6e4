"""Measuring tools for the table server: they start servers, talk to them and report timings.

* :mod:`.soak` (`gemtable soak`): a table's move latency alone and while a
  spectator floods the server with messages and then stops reading its socket.
* :mod:`.loadtest` (`gemtable loadtest`): many tables of scripted players over
  WebSocket against private ``gemtable serve`` workers (or an existing server),
  with latency percentiles, throughput, errors and the processes' CPU and memory.
* :mod:`.rawws`: a bare WebSocket client whose reads the caller controls, to
  play a client that stops reading.
* :mod:`.common`: small helpers the tools share.

This package builds on :mod:`gemtable.server`; the server never imports it.
Nothing is imported here, so ``import gemtable.measure.soak`` stays as light
as the tool it names.
"""
