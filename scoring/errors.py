"""The one exception type for errors a user can cause, defined here because scoring is the lowest layer that raises it.

Scoring raises it for a malformed hand string or an impossible hand or context; the layers above (vision for a bad
photo, model or dataset, the CLI for a bad argument) raise the same type with their own messages, and own no error
kinds of their own down here. Every message says what is wrong and where; the CLI prints it on one line and exits
with status 2. Programming errors stay ordinary exceptions.
"""


class FanscanError(ValueError):
    """An error caused by the user's input; its message is meant to be shown as is, on one line."""
