"""A software authenticator for the passkey tests: an ES256 key (``cryptography``) that answers
WebAuthn options as a browser with a platform authenticator would, written byte by byte from
the WebAuthn specification (attestation ``none``; authenticator data, client data, an ECDSA
signature), so the server's checks meet real answers.  Every part an attack changes can be
given: the origin, the RP id, the challenge, the sign count, the user handle, the signing key."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
from dataclasses import dataclass, field
from typing import Any

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from webauthn.helpers.encode_cbor import encode_cbor

UP, UV, AT = 0x01, 0x04, 0x40


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def cose_key(key: ec.EllipticCurvePrivateKey) -> bytes:
    n = key.public_key().public_numbers()
    return encode_cbor({1: 2, 3: -7, -1: 1, -2: n.x.to_bytes(32, "big"), -3: n.y.to_bytes(32, "big")})


@dataclass
class SoftKey:
    """One credential on a software authenticator."""

    origin: str = "http://testserver"
    key: ec.EllipticCurvePrivateKey = field(default_factory=lambda: ec.generate_private_key(ec.SECP256R1()))
    credential_id: bytes = field(default_factory=lambda: secrets.token_bytes(16))
    sign_count: int = 0
    user_handle: bytes | None = None  # the WebAuthn user id given at registration

    @property
    def id(self) -> str:
        return b64(self.credential_id)

    def _client_data(self, kind: str, challenge: str, origin: str | None) -> bytes:
        return json.dumps({"type": kind, "challenge": challenge, "origin": origin or self.origin,
                           "crossOrigin": False}).encode()

    def create(self, options: dict[str, Any], *, origin: str | None = None, rp_id: str | None = None,
               flags: int = UP | UV | AT, challenge: str | None = None) -> dict[str, Any]:
        """The answer of ``navigator.credentials.create(options)`` (JSON, as the page posts it)."""
        self.user_handle = unb64(options["user"]["id"])
        rp = rp_id or options["rp"]["id"]
        auth_data = (hashlib.sha256(rp.encode()).digest() + bytes([flags]) + self.sign_count.to_bytes(4, "big")
                     + bytes(16) + len(self.credential_id).to_bytes(2, "big") + self.credential_id
                     + cose_key(self.key))
        attestation = encode_cbor({"fmt": "none", "attStmt": {}, "authData": auth_data})
        client_data = self._client_data("webauthn.create", challenge or options["challenge"], origin)
        return {"id": self.id, "rawId": self.id, "type": "public-key", "authenticatorAttachment": "platform",
                "clientExtensionResults": {},
                "response": {"clientDataJSON": b64(client_data), "attestationObject": b64(attestation),
                             "transports": ["internal"]}}

    def get(self, options: dict[str, Any], *, origin: str | None = None, rp_id: str | None = None,
            flags: int = UP | UV, count: int | None = None, signer: ec.EllipticCurvePrivateKey | None = None,
            user_handle: bytes | None = None, challenge: str | None = None) -> dict[str, Any]:
        """The answer of ``navigator.credentials.get(options)``; the sign count goes up by one
        (or is ``count``)."""
        self.sign_count = self.sign_count + 1 if count is None else count
        rp = rp_id or options["rpId"]
        auth_data = hashlib.sha256(rp.encode()).digest() + bytes([flags]) + self.sign_count.to_bytes(4, "big")
        client_data = self._client_data("webauthn.get", challenge or options["challenge"], origin)
        signature = (signer or self.key).sign(auth_data + hashlib.sha256(client_data).digest(),
                                              ec.ECDSA(hashes.SHA256()))
        handle = user_handle if user_handle is not None else self.user_handle
        return {"id": self.id, "rawId": self.id, "type": "public-key", "authenticatorAttachment": "platform",
                "clientExtensionResults": {},
                "response": {"clientDataJSON": b64(client_data), "authenticatorData": b64(auth_data),
                             "signature": b64(signature), "userHandle": None if handle is None else b64(handle)}}
