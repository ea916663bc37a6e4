"""WebSocket close codes of the table socket (4000-4999 are ours; see docs/websocket.md)."""

CLOSE_MALFORMED = 4400  # a malformed frame or handshake, or a token in the URL
CLOSE_SEAT_LOST = 4401  # the connection's seat token no longer holds its seat
CLOSE_FORBIDDEN = 4403  # a token not valid for the table, or a page of another site
CLOSE_NOT_FOUND = 4404  # no such table
CLOSE_SLOW = 4408  # the client fell behind reading its messages
CLOSE_GONE = 4410  # the table's game is not installed, or its log does not replay
CLOSE_RATE = 4429  # too many messages, or too many refused tokens
CLOSE_TOO_BIG = 1009  # a message (or the handshake's headers) over the limit
