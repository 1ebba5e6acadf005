"""The one exception type for errors a user can cause (bad hand string, impossible context, bad file, ...).

Every layer raises it with a message that says what is wrong and where; the CLI prints the message on one line
and exits non-zero. Programming errors stay ordinary exceptions.
"""


class FanscanError(ValueError):
    """An error caused by the user's input; its message is meant to be shown as is, on one line."""
