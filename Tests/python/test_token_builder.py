"""The Python token builder (agoraish/token.py) against the shared vectors, the CLI and the server.

The module is loaded from its file, as a module of its own, so these tests run
without libagoraish and without the rest of the package (test_lazy_library.py
checks that the package import loads no library either); only the end-to-end
test at the bottom needs the library and skips without it.
"""

from __future__ import annotations

import ast
import base64
import importlib.util
import json
import os
import struct
import subprocess
import sys
import zlib

import pytest

import support  # noqa: F401  (sys.path and AGORAISH_LIBRARY)
from support import BINDING, ROOT

MODULE_FILE = BINDING / "agoraish" / "token.py"
VECTORS = json.loads((ROOT / "Tests/AgoraishWireTests/Fixtures/token-vectors.json").read_text())["vectors"]

APP_ID = "0d3723ff78bff15b898cbaa8565c4eaa"
CERT = "8417c227d4257030f424cee3a53e5829"
OTHER_CERT = "00112233445566778899aabbccddeeff"
TS = 1718000000


def _load_module():
    spec = importlib.util.spec_from_file_location("agoraish_token_under_test", MODULE_FILE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


tk = _load_module()
RtcTokenBuilder = tk.RtcTokenBuilder
RtcTokenBuilder006 = tk.RtcTokenBuilder006
AccessToken2 = tk.AccessToken2
AccessToken006 = tk.AccessToken006


def build_vector(v: dict) -> str:
    """The token the builder named by vector `v` makes from the vector's inputs, salt and issue time."""
    pin = {"issue_ts": v["issue_ts"], "salt": v["salt"]}
    who = v["account"] if "account" in v else v["uid"]
    expire = v["privilege_expire"]
    if v["format"] == "006":
        return RtcTokenBuilder006.buildTokenWithUid(v["app_id"], v["app_certificate"], v["channel"], who,
                                                    v["role_value"], expire, **pin)
    if v["role"] is None:
        return RtcTokenBuilder.build_token_with_uid_and_privilege(
            v["app_id"], v["app_certificate"], v["channel"], who, v["token_expire"], expire["join_channel"],
            expire["publish_audio"], expire["publish_video"], expire["publish_data_stream"], **pin)
    build = (RtcTokenBuilder.build_token_with_user_account if "account" in v
             else RtcTokenBuilder.build_token_with_uid)
    return build(v["app_id"], v["app_certificate"], v["channel"], who, v["role_value"], v["token_expire"],
                 expire, **pin)


# ---------------------------------------------------------------------------
# Vectors
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("v", VECTORS, ids=[v["id"] for v in VECTORS])
def test_builder_reproduces_the_official_token(v):
    # Damaged vectors carry the builder's output as source_token.
    assert build_vector(v) == v.get("source_token", v["token"])


UNDAMAGED = [v for v in VECTORS if v.get("mutation") is None]


@pytest.mark.parametrize("v", UNDAMAGED, ids=[v["id"] for v in UNDAMAGED])
def test_parser_reads_the_fields_of_the_official_token(v):
    d = v["decoded"]
    if v["format"] == "007":
        t = AccessToken2.parse(v["token"])
        assert (t.signature.hex(), t.app_id, t.issue_ts, t.expire, t.salt) == (
            d["signature_hex"], d["app_id"], d["issue_ts"], d["expire"], d["salt"])
        assert (b"\x20\x00" + t.signature + t.signed_region).hex() == d["payload_hex"]
        assert [{"type": s.service_type(), "privileges": {str(k): e for k, e in s.privileges.items()},
                 "channel": s.channel_name.decode(), "uid": s.uid.decode()} for s in t.services] == d["services"]
        assert t.verify_signature(v["app_certificate"])
    else:
        t = AccessToken006.parse(v["token"])
        assert (t.appID, t.signature.hex(), t.crc_channel, t.crc_uid, t.salt, t.ts) == (
            d["app_id"], d["signature_hex"], d["crc_channel"], d["crc_uid"], d["salt"], d["ts"])
        assert {str(k): e for k, e in t.messages.items()} == d["privileges"]
        assert t.verify_signature(v["app_certificate"], v["channel"], v.get("account", v.get("uid")))


def vector(name: str) -> dict:
    return next(v for v in VECTORS if v["id"] == name)


def test_a_token_signed_with_another_certificate_fails_the_signature_check():
    v = vector("neg-007-wrong-certificate")
    assert not AccessToken2.parse(v["token"]).verify_signature(v["verify"]["app_certificate"])


def test_006_crcs_tell_apart_channel_and_uid_that_concatenate_alike():
    v = vector("neg-006-crc-shifted-boundary")  # room1 + 23 vs room12 + 3: same HMAC input
    t = AccessToken006.parse(v["token"])
    assert t.verify_signature(v["app_certificate"], "room1", 23)
    assert not t.verify_signature(v["app_certificate"], "room12", 3)


def test_a_tampered_field_breaks_the_signature():
    v = vector("neg-007-tampered-expire-field")
    t = AccessToken2.parse(v["token"])
    assert t.expire == 86400
    assert not t.verify_signature(v["app_certificate"])


@pytest.mark.parametrize("name", ["neg-007-truncated", "neg-007-bad-base64", "neg-wrong-version-prefix"])
def test_a_damaged_vector_does_not_parse(name):
    with pytest.raises(ValueError):
        AccessToken2.parse(vector(name)["token"])


# ---------------------------------------------------------------------------
# Round trips and identities
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("who", [0, 1, 4294967295, "", "0", "alice", "Zoë 🎧", "12345"])
def test_007_build_parse_round_trip(who):
    build = RtcTokenBuilder.build_token_with_uid if isinstance(who, int) else \
        RtcTokenBuilder.build_token_with_user_account
    text = build(APP_ID, CERT, "ünïcode room", who, tk.Role_Publisher, 3600, 1800, issue_ts=TS, salt=99999999)
    t = AccessToken2.parse(text)
    assert (t.app_id, t.issue_ts, t.expire, t.salt) == (APP_ID, TS, 3600, 99999999)
    (rtc,) = t.rtc_services()
    assert rtc.channel_name == "ünïcode room".encode()
    assert rtc.uid == (b"" if who == 0 else str(who).encode())
    assert rtc.privileges == {1: 1800, 2: 1800, 3: 1800, 4: 1800}
    assert t.verify_signature(CERT) and not t.verify_signature(OTHER_CERT)
    t.app_certificate = CERT
    assert t.build() == text  # a parsed token signs back to the same string


@pytest.mark.parametrize("who", [0, 77, "", "0", "bob"])
def test_006_build_parse_round_trip(who):
    build = RtcTokenBuilder006.buildTokenWithUid if isinstance(who, int) else \
        RtcTokenBuilder006.buildTokenWithAccount
    text = build(APP_ID, CERT, "room", who, tk.Role_Subscriber, TS + 600, issue_ts=TS, salt=7)
    t = AccessToken006.parse(text)
    assert (t.appID, t.salt, t.ts, t.messages) == (APP_ID, 7, TS + 86400, {1: TS + 600})
    assert t.verify_signature(CERT, "room", who)
    assert not t.verify_signature(OTHER_CERT, "room", who)
    t.appCertificate, t.channelName, t.uidStr = CERT, "room", "" if who == 0 else str(who)
    assert t.build() == text


def test_roles_grant_the_privileges_of_the_format():
    def keys(role):
        text = RtcTokenBuilder.build_token_with_uid(APP_ID, CERT, "r", 5, role, 60, issue_ts=TS, salt=1)
        return sorted(AccessToken2.parse(text).rtc_services()[0].privileges)

    def keys006(role):
        text = RtcTokenBuilder006.buildTokenWithUid(APP_ID, CERT, "r", 5, role, 0, issue_ts=TS, salt=1)
        return sorted(AccessToken006.parse(text).messages)

    assert keys(tk.Role_Publisher) == [1, 2, 3, 4]
    assert keys(tk.Role_Subscriber) == keys(0) == keys(101) == [1]
    assert keys006(tk.Role_Publisher) == keys006(tk.Role_Attendee) == keys006(tk.Role_Admin) == [1, 2, 3, 4]
    assert keys006(tk.Role_Subscriber) == keys006(7) == [1]


def test_an_account_of_digits_encodes_like_the_uid_and_account_0_is_not_the_wildcard():
    def by(build, who):
        return build(APP_ID, CERT, "r", who, tk.Role_Publisher, 60, issue_ts=TS, salt=1)

    uid, account = RtcTokenBuilder.build_token_with_uid, RtcTokenBuilder.build_token_with_user_account
    assert by(account, "12345") == by(uid, 12345)
    assert by(account, "") == by(uid, 0)
    assert by(account, "0") != by(uid, 0)


def test_agora_style_objects_build_and_read_tokens():
    token = AccessToken2(APP_ID, CERT, issue_ts=TS, expire=600, salt=3)
    service = tk.ServiceRtc("room", 42)
    service.add_privilege(tk.ServiceRtc.kPrivilegeJoinChannel, 0)
    token.add_service(service)
    text = token.build()
    assert text == RtcTokenBuilder.build_token_with_uid(APP_ID, CERT, "room", 42, tk.Role_Subscriber, 600,
                                                        issue_ts=TS, salt=3)
    reader = AccessToken2()
    assert reader.from_string(text) and reader.salt == 3 and reader.rtc_services()[0].uid == b"42"
    assert AccessToken2().from_string("006" + APP_ID + "AAAA") is False

    old = AccessToken006(APP_ID, CERT, "room", 42, issue_ts=TS, salt=3)
    old.addPrivilege(tk.kJoinChannel, 0)
    text006 = old.build()
    reader006 = AccessToken006()
    assert reader006.fromString(text006) and reader006.ts == TS + 86400
    assert AccessToken006().fromString(text) is False


def test_without_pins_the_issue_time_is_now_and_the_salt_random():
    import time

    before = int(time.time())
    t = AccessToken2.parse(RtcTokenBuilder.build_token_with_uid(APP_ID, CERT, "r", 1, 1, 60))
    assert before <= t.issue_ts <= int(time.time())
    assert 1 <= t.salt <= 99999999
    t006 = AccessToken006.parse(RtcTokenBuilder006.buildTokenWithUid(APP_ID, CERT, "r", 1, 1, 0))
    assert before + 86400 <= t006.ts <= int(time.time()) + 86400
    assert 1 <= t006.salt <= 99999999


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------

GOOD = {"app_id": APP_ID, "app_certificate": CERT, "channel_name": "room", "uid": 5, "role": 1,
        "token_expire": 600, "privilege_expire": 0, "issue_ts": TS, "salt": 1}
BAD = [
    ("app_id", APP_ID[:31]), ("app_id", APP_ID + "0"), ("app_id", "g" * 32), ("app_id", None), ("app_id", ""),
    ("app_certificate", "x" * 32), ("app_certificate", b"8417c227d4257030f424cee3a53e5829"),
    ("app_certificate", ""),
    ("channel_name", ""), ("channel_name", None), ("channel_name", b"room"), ("channel_name", "x" * 65536),
    ("channel_name", "\udc80"),
    ("uid", -1), ("uid", 2**32), ("uid", "5"), ("uid", True), ("uid", 5.0), ("uid", None),
    ("role", "publisher"), ("role", None),
    ("token_expire", -1), ("token_expire", 2**32), ("privilege_expire", -5), ("privilege_expire", "0"),
    ("issue_ts", -1), ("issue_ts", 2**32), ("salt", -1), ("salt", 2**32), ("salt", 1.5),
]


@pytest.mark.parametrize("field,value", BAD, ids=[f"{f}={v!r}"[:40] for f, v in BAD])
def test_bad_input_raises_value_error(field, value):
    args = dict(GOOD, **{field: value})
    with pytest.raises(ValueError):
        RtcTokenBuilder.build_token_with_uid(**args)
    if field in ("token_expire",):
        return
    args006 = {"appId": args["app_id"], "appCertificate": args["app_certificate"],
               "channelName": args["channel_name"], "uid": args["uid"], "role": args["role"],
               "privilegeExpiredTs": args["privilege_expire"], "issue_ts": args["issue_ts"], "salt": args["salt"]}
    with pytest.raises(ValueError):
        RtcTokenBuilder006.buildTokenWithUid(**args006)


@pytest.mark.parametrize("account", [None, b"alice", "x" * 65536, -1])
def test_bad_accounts_raise_value_error(account):
    with pytest.raises(ValueError):
        RtcTokenBuilder.build_token_with_user_account(APP_ID, CERT, "room", account, 1, 600)
    with pytest.raises(ValueError):
        RtcTokenBuilder006.buildTokenWithAccount(APP_ID, CERT, "room", account, 1, 0)


def test_a_token_without_services_or_certificate_is_refused():
    with pytest.raises(ValueError):
        AccessToken2(APP_ID, CERT, issue_ts=TS, salt=1).build()
    token = AccessToken2(APP_ID, issue_ts=TS, salt=1)
    token.add_service(tk.ServiceRtc("room", 1))
    with pytest.raises(ValueError):
        token.build()
    with pytest.raises(ValueError):
        tk.ServiceRtc("room", 1).add_privilege(70000, 0)


def b64z(payload: bytes) -> str:
    return "007" + base64.b64encode(zlib.compress(payload)).decode()


VALID = RtcTokenBuilder.build_token_with_uid(APP_ID, CERT, "room", 5, 1, 600, issue_ts=TS, salt=1)
VALID_PAYLOAD = zlib.decompress(base64.b64decode(VALID[3:]))
MALFORMED_007 = {
    "empty": "",
    "prefix only": "007",
    "not a string": None,
    "length not a multiple of 4": VALID + "A",
    "surplus padding": VALID + "====",
    "padding inside": VALID[:8] + "=" + VALID[9:],
    "url-safe alphabet": VALID.replace("+", "-").replace("/", "_"),
    "whitespace": VALID[:10] + "\n" + VALID[10:],
    "bytes after the zlib stream": "007" + base64.b64encode(zlib.compress(VALID_PAYLOAD) + b"\0").decode(),
    "incomplete zlib stream": "007" + base64.b64encode(zlib.compress(VALID_PAYLOAD)[:-4]).decode(),
    "raw deflate": "007" + base64.b64encode(zlib.compress(VALID_PAYLOAD)[2:]).decode(),
    "compression bomb": b64z(VALID_PAYLOAD + b"\0" * (tk.MAX_PAYLOAD + 1)),
    "short signature": b64z(struct.pack("<H", 31) + VALID_PAYLOAD[2:33] + VALID_PAYLOAD[34:]),
    "truncated payload": b64z(VALID_PAYLOAD[:-1]),
    "service count past the end": b64z(VALID_PAYLOAD[:34 + 2 + 32 + 12] + b"\x02\x00" + VALID_PAYLOAD[34 + 46 + 2:]),
}


@pytest.mark.parametrize("name", list(MALFORMED_007))
def test_a_malformed_007_token_raises_value_error(name):
    assert MALFORMED_007[name] != VALID
    with pytest.raises(ValueError):
        AccessToken2.parse(MALFORMED_007[name])


def test_extra_signed_bytes_and_unknown_service_types_are_read_past():
    region = VALID_PAYLOAD[34:]
    count = 34 + 2 + 32 + 12
    for region2 in (region + b"\x09",  # trailing signed byte
                    region[:count - 34] + b"\x02\x00" + region[count - 34 + 2:] + b"\x63\x00junk"):  # type 99
        sig = AccessToken2._sign(CERT.encode(), TS, 1, region2)
        t = AccessToken2.parse(b64z(b"\x20\x00" + sig + region2))
        assert t.verify_signature(CERT) and len(t.rtc_services()) == 1


def test_a_malformed_006_token_raises_value_error():
    good = RtcTokenBuilder006.buildTokenWithUid(APP_ID, CERT, "room", 5, 1, 0, issue_ts=TS, salt=1)
    content = base64.b64decode(good[35:])
    for bad in ("", good[:35], "006" + APP_ID + base64.b64encode(content + b"\0").decode(),
                "006" + APP_ID + base64.b64encode(content[:-1]).decode(), good + "A", "007" + good[3:],
                "006" + "é" * 32 + good[35:]):
        with pytest.raises(ValueError):
            AccessToken006.parse(bad)


# ---------------------------------------------------------------------------
# Standalone loading
# ---------------------------------------------------------------------------


def test_the_module_loads_without_the_library_and_imports_nothing_of_the_package():
    code = ("import importlib.util, sys\n"
            f"spec = importlib.util.spec_from_file_location('agoraish_token', {str(MODULE_FILE)!r})\n"
            "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
            f"print(m.RtcTokenBuilder.build_token_with_uid({APP_ID!r}, {CERT!r}, 'room', 5, 1, 600,"
            f" issue_ts={TS}, salt=1))\n"
            "print(sorted(n for n in sys.modules if n.startswith('agoraish') or n == 'ctypes'))\n")
    env = dict(os.environ, AGORAISH_LIBRARY="/nonexistent/libagoraish.so.0")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [VALID, "[]"]  # no agoraish module, no ctypes
    imported = set()
    for node in ast.walk(ast.parse(MODULE_FILE.read_text())):
        if isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add("." * node.level + (node.module or ""))
    assert imported <= {"__future__", "base64", "hashlib", "hmac", "re", "secrets", "struct", "time", "typing",
                        "zlib"}


def test_the_package_makes_the_module_reachable():
    try:
        import agoraish
    except (ImportError, OSError) as error:
        pytest.skip(f"libagoraish not loadable: {error}")
    assert agoraish.token.RtcTokenBuilder.build_token_with_uid(APP_ID, CERT, "room", 5, 1, 600, issue_ts=TS,
                                                               salt=1) == VALID


# ---------------------------------------------------------------------------
# The agoraish-token CLI
# ---------------------------------------------------------------------------


def find_cli():
    for pattern in (".build/*/agoraish-token", ".build/*/*/agoraish-token", "dist/bin/agoraish-token"):
        for path in sorted(ROOT.glob(pattern)):
            if os.access(path, os.X_OK):
                return path
    return None


CLI = find_cli()
needs_cli = pytest.mark.skipif(CLI is None, reason="no agoraish-token binary under .build/ or dist/bin/")

CLI_CASES = [
    ("007", ["--uid", "1001"], "publisher", 3600, 3600),
    ("007", ["--uid", "0"], "publisher", 600, 0),
    ("007", ["--uid", "4294967295"], "subscriber", 86400, 30),
    ("007", ["--account", "alice"], "subscriber", 7200, 0),
    ("007", ["--account", "0"], "publisher", 60, 60),
    ("007", ["--account", "Zoë 🎧"], "publisher", 60, 0),
    ("006", ["--uid", "1001"], "publisher", 0, TS + 3600),
    ("006", ["--uid", "0"], "subscriber", 0, 0),
    ("006", ["--account", "bob"], "publisher", 0, TS + 60),
]


@needs_cli
@pytest.mark.parametrize("fmt,who,role,expire,privilege", CLI_CASES)
@pytest.mark.parametrize("channel", ["agoraish-demo", "ünïcode/room"])
def test_cli_and_python_build_the_same_token(fmt, who, role, expire, privilege, channel):
    out = subprocess.run([str(CLI), "build", "--format", fmt, "--app-id", APP_ID, "--app-certificate", CERT,
                          "--channel", channel, *who, "--role", role, "--expire", str(expire),
                          "--privilege-expire", str(privilege), "--issue-ts", str(TS), "--salt", "424242"],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    identity = int(who[1]) if who[0] == "--uid" else who[1]
    role_value = tk.Role_Publisher if role == "publisher" else tk.Role_Subscriber
    pin = {"issue_ts": TS, "salt": 424242}
    if fmt == "007":
        build = RtcTokenBuilder.build_token_with_uid if who[0] == "--uid" else \
            RtcTokenBuilder.build_token_with_user_account
        ours = build(APP_ID, CERT, channel, identity, role_value, expire, privilege, **pin)
    else:
        build = RtcTokenBuilder006.buildTokenWithUid if who[0] == "--uid" else \
            RtcTokenBuilder006.buildTokenWithAccount
        ours = build(APP_ID, CERT, channel, identity, role_value, privilege, **pin)
    assert out.stdout.strip() == ours


@needs_cli
def test_cli_accepts_what_python_builds():
    text = RtcTokenBuilder.build_token_with_user_account(APP_ID, CERT, "room", "alice", tk.Role_Publisher, 600,
                                                         issue_ts=TS, salt=5)
    common = ["verify", "--token", text, "--app-id", APP_ID, "--channel", "room", "--account", "alice",
              "--privilege", "publish_video"]
    ok = subprocess.run([str(CLI), *common, "--app-certificate", CERT, "--now", str(TS + 10)],
                        capture_output=True, text=True, timeout=30)
    assert ok.stdout.split()[0] == "0", ok.stdout
    forged = subprocess.run([str(CLI), *common, "--app-certificate", OTHER_CERT, "--now", str(TS + 10)],
                            capture_output=True, text=True, timeout=30)
    assert forged.stdout.split()[0] == "-110", forged.stdout


# ---------------------------------------------------------------------------
# The embedded server
# ---------------------------------------------------------------------------


@pytest.fixture
def token_server():
    """An embedded server where abuse_support.APP checks tokens with abuse_support.CERT; skips without the
    library."""
    try:
        import agoraish  # noqa: F401
    except (ImportError, OSError) as error:
        pytest.skip(f"libagoraish not loadable: {error}")
    from abuse_support import token_channel_server

    with token_channel_server() as server:
        yield server


def test_the_server_admits_python_built_tokens_and_refuses_a_forged_one(token_server, make_peer):
    import agoraish
    from abuse_support import APP, CERT as SERVER_CERT

    good = {
        "uid 007": ("join_channel", RtcTokenBuilder.build_token_with_uid(
            APP, SERVER_CERT, "py-room", 21, tk.Role_Publisher, 600), 21),
        "account 007": ("join_channel_with_user_account", RtcTokenBuilder.build_token_with_user_account(
            APP, SERVER_CERT, "py-room", "py-zoe", tk.Role_Subscriber, 600), "py-zoe"),
        "uid 006": ("join_channel", RtcTokenBuilder006.buildTokenWithUid(
            APP, SERVER_CERT, "py-room", 23, tk.Role_Publisher, 0), 23),
    }
    peers = {}
    for name, (method, text, who) in good.items():
        peers[name] = make_peer(token_server.url, name.replace(" ", "-"))
        if method == "join_channel":
            peers[name].call(method, text, "py-room", None, who)
        else:
            peers[name].call(method, text, "py-room", who)
    forged = make_peer(token_server.url, "forged")
    forged.call("join_channel", RtcTokenBuilder.build_token_with_uid(
        APP, OTHER_CERT, "py-room", 24, tk.Role_Publisher, 600), "py-room", None, 24)
    for name, peer in peers.items():
        peer.log.wait("on_join_channel_success")
        assert peer.call("get_connection_state") == agoraish.ConnectionState.CONNECTED, name
    forged.log.wait("on_connection_state_changed", 5)
    assert forged.call("get_connection_state") == agoraish.ConnectionState.FAILED
    assert ("on_connection_state_changed", [5, 8]) in forged.log.of("on_connection_state_changed")  # INVALID_TOKEN
