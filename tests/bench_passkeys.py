"""What a passkey sign-in costs (a measurement, not a test: ``python tests/bench_passkeys.py``).

Two figures: the signature check alone (``webauthn.verify_authentication_response`` on an
ES256 assertion of tests/softkey.py), and a whole sign-in through the JSON API (the CSRF token
asked, the options, the answer checked, the session opened; SQLite; the server and the test
client in this one process, so the CPU counted is an upper bound of the server's)."""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from webauthn import verify_authentication_response

from softkey import SoftKey, b64, cose_key  # tests/ is the script's folder, first on its path
from test_web_accounts import card_room, post, register


def check_alone(n: int) -> float:
    """CPU milliseconds of one signature check."""
    key = SoftKey()
    public = cose_key(key.key)
    challenge = b"\x07" * 32
    options = {"rpId": "testserver", "challenge": b64(challenge)}
    answers = [key.get(options) for _ in range(n)]
    began = time.process_time()
    for count, answer in enumerate(answers):
        verify_authentication_response(credential=answer, expected_challenge=challenge, expected_rp_id="testserver",
                                       expected_origin="http://testserver", credential_public_key=public,
                                       credential_current_sign_count=count, require_user_verification=True)
    return (time.process_time() - began) / n * 1000


def whole_signin(n: int) -> tuple[float, float]:
    """CPU and wall milliseconds of one sign-in through the API."""
    with tempfile.TemporaryDirectory() as where, card_room(Path(where)) as client:
        client.app.state.accounts.limits.failures_per_address = 0  # type: ignore[attr-defined]
        assert register(client, "Ann").status_code == 201
        key = SoftKey()
        options = post(client, "passkeys/options", {}).json()["options"]
        assert post(client, "passkeys", {"credential": key.create(options)}).status_code == 201
        began, wall = time.process_time(), time.perf_counter()
        for _ in range(n):
            options = post(client, "passkeys/signin/options", {}).json()["options"]
            assert post(client, "passkeys/signin", {"credential": key.get(options)}).status_code == 200
        return (time.process_time() - began) / n * 1000, (time.perf_counter() - wall) / n * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checks", type=int, default=2000)
    parser.add_argument("--signins", type=int, default=200)
    args = parser.parse_args()
    print(f"signature check alone: {check_alone(args.checks):.3f} ms of CPU ({args.checks} checks)")
    cpu, wall = whole_signin(args.signins)
    print(f"whole sign-in through the API: {cpu:.1f} ms of CPU, {wall:.1f} ms of wall time ({args.signins} sign-ins)")


if __name__ == "__main__":
    main()
