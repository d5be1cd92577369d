"""Deal secrets encrypted at rest.

A fair table keeps, before each hand, the secret its deal is made from
(:mod:`canasta.engine.fairdeal`); whoever reads it early knows the deal.  The card room
writes every such secret to its database encrypted (Fernet: AES-128-CBC with an
HMAC-SHA256, from the ``cryptography`` package), with a key that is not in the
database:

* ``CANASTA_SECRET_KEYS``: one or more keys, comma-separated; the first encrypts,
  every one decrypts (rotation: put a new key first, restart, then
  ``canasta serve --db URL --reencrypt-secrets`` rewrites every row with it; then
  the old key may go).  ``canasta serve --new-secret-key`` prints a fresh key.
* Without it, a SQLite database gets a key file of its own beside it
  (``FILE.key``, readable by its owner only), so that a copy of the database alone
  does not reveal a deal; a PostgreSQL database refuses to start without a key.

A ``secret`` is stored as ``"fernet:TOKEN"``; a plain hexadecimal secret (a row
written before encryption) is still read."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from canasta.engine.errors import CanastaError

ENV = "CANASTA_SECRET_KEYS"
PREFIX = "fernet:"


class Vault:
    """Seals and opens the ``secret`` fields of what a store writes (headers, events)."""

    def __init__(self, keys: list[str], origin: str) -> None:
        from cryptography.fernet import Fernet, MultiFernet

        if not keys:
            raise CanastaError(f"{ENV}: give at least one key")
        try:
            self.first = Fernet(keys[0].strip().encode())
            self.key = keys[0].strip().encode()
            self.fernet = MultiFernet([Fernet(k.strip().encode()) for k in keys])
        except (ValueError, TypeError):
            raise CanastaError(f"{origin}: a key is 32 bytes in url-safe base64 (44 characters); make one "
                               "with: canasta serve --new-secret-key") from None
        self.origin = origin

    def tag(self, text: str) -> str:
        """A short keyed digest of ``text`` (HMAC-SHA256 under the first key): the same text gives
        the same tag, and the tag does not give the text back (a client address kept as a tag)."""
        import hashlib
        import hmac

        return hmac.new(self.key, text.encode(), hashlib.sha256).hexdigest()[:16]

    def seal(self, data: Any) -> Any:
        """``data`` with every ``secret`` text encrypted (a copy; the rest as it is)."""
        return self._walk(data, self._seal_one)

    def open(self, data: Any) -> Any:
        """``data`` as :meth:`seal` wrote it, decrypted (plain secrets pass through)."""
        return self._walk(data, self._open_one)

    def reseal(self, data: Any) -> Any:
        """``data`` decrypted with any key and encrypted again with the first one."""
        return self.seal(self.open(data))

    def renew(self, data: Any) -> Any:
        """:meth:`reseal`'s ``data``, or None if every secret in it is under the first key already."""
        stale = False

        def check(secret: str) -> str:
            nonlocal stale
            if not secret.startswith(PREFIX):
                stale = True
                return secret
            from cryptography.fernet import InvalidToken

            try:
                self.first.decrypt(secret[len(PREFIX):].encode())
            except InvalidToken:
                stale = True
            return secret

        self._walk(data, check)
        return self.reseal(data) if stale else None

    def _seal_one(self, secret: str) -> str:
        if secret.startswith(PREFIX):
            return secret
        return PREFIX + self.fernet.encrypt(secret.encode()).decode()

    def _open_one(self, secret: str) -> str:
        if not secret.startswith(PREFIX):
            return secret
        from cryptography.fernet import InvalidToken

        try:
            return self.fernet.decrypt(secret[len(PREFIX):].encode()).decode()
        except InvalidToken:
            raise CanastaError(f"a deal secret in the database does not open with the keys of {self.origin}: "
                               f"give the key it was written with in {ENV}") from None

    def _walk(self, data: Any, one: Any) -> Any:
        if isinstance(data, Mapping):
            return {k: (one(v) if k == "secret" and isinstance(v, str) else self._walk(v, one))
                    for k, v in data.items()}
        if isinstance(data, list):
            return [self._walk(v, one) for v in data]
        return data


def new_key() -> str:
    from cryptography.fernet import Fernet

    return Fernet.generate_key().decode()


def vault_for(url: str) -> Vault:
    """The vault of a database URL: the keys of :data:`ENV`, else (SQLite) the key file
    beside the database, made on first use."""
    given = os.environ.get(ENV, "").strip()
    if given:
        return Vault([k for k in given.split(",") if k.strip()], ENV)
    if not url.startswith("sqlite"):
        raise CanastaError(f"deal secrets are stored encrypted, and this database needs a key that is not in it: "
                           f"set {ENV} (make a key with: canasta serve --new-secret-key; docs/deploy.md)")
    path = url.split(":///", 1)[1] if ":///" in url else ""
    if not path or path == ":memory:" or path.startswith("file:"):
        return Vault([new_key()], "this process (an in-memory database)")
    key_file = Path(path + ".key")
    if not key_file.exists():
        fd = os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(new_key() + "\n")
    return Vault([key_file.read_text().strip()], str(key_file))


__all__ = ["ENV", "Vault", "new_key", "vault_for"]
