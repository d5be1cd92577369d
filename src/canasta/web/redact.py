"""URLs as they may be written in a log or an error: without their password."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit


def redact(url: str) -> str:
    """``url`` with its password, if it has one, replaced by ``***``."""
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:  # not a URL this parser reads: say nothing of what it holds after the scheme
        return url.split("://", 1)[0] + "://***" if "://" in url else url
    if password is None:
        return url
    user, _, where = parts.netloc.rpartition("@")
    return urlunsplit(parts._replace(netloc=f"{user.split(':', 1)[0]}:***@{where}"))


__all__ = ["redact"]
