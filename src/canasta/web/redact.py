"""URLs and errors as they may be written in a log or an error: without their password.

A password may hold any character: ``/``, ``#``, ``?`` and ``%`` as typed (SQLAlchemy reads a
password up to the ``@`` before the host), ``@`` percent-encoded, or be given as a
``?password=`` parameter, or as ``password=`` in a key-value connection string.  Everything
between ``scheme://`` and the last ``@`` is taken as the user and password, so what cannot be
told apart is hidden rather than shown."""

from __future__ import annotations

import re

_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://\S+")
#: a parameter whose name holds "password" (password=, sslpassword=, ...), in a query or a DSN
_PARAM = re.compile(r"(?i)((?:^|[?&;\s])[^=&?;\s]*pass(?:word)?[^=&?;\s]*\s*=\s*)('[^']*'|[^&\s]*)")


def redact(url: str) -> str:
    """``url`` with its password, if it has one, replaced by ``***`` (the user, host, port,
    database and other parameters as they are)."""
    if "://" not in url:
        return _PARAM.sub(r"\1***", url)
    scheme, rest = url.split("://", 1)
    if "@" in rest:
        userinfo, _, where = rest.rpartition("@")
        if ":" in userinfo:
            rest = f"{userinfo.split(':', 1)[0]}:***@{where}"
        elif "/" not in userinfo and "?" not in userinfo:  # a user alone (no password)
            rest = f"{userinfo}@{where}"
    return scheme + "://" + _PARAM.sub(r"\1***", rest)


def redact_text(text: str) -> str:
    """A message with every URL in it redacted, and every ``password=`` value hidden."""
    return _PARAM.sub(r"\1***", _URL.sub(lambda m: redact(m.group(0)), text))


def said(exc: BaseException) -> str:
    """An exception as a log line may say it: its type and its message, redacted.  Never empty
    (a timeout's own message is)."""
    text = redact_text(str(exc)).strip()
    name = type(exc).__name__
    return f"{name}: {text}" if text else name


__all__ = ["redact", "redact_text", "said"]
