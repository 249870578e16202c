"""agoraish-token against every shared token vector (docs/tokens.md)."""
import json
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLI = ROOT / ".build" / "debug" / "agoraish-token"
VECTORS = json.loads((ROOT / "Tests/AgoraishWireTests/Fixtures/token-vectors.json").read_text())["vectors"]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(CLI), *args], capture_output=True, text=True, timeout=30)


def who(d: dict) -> list:
    return ["--account", d["account"]] if "account" in d else ["--uid", str(d.get("uid", 0))]


@pytest.mark.parametrize("v", VECTORS, ids=[v["id"] for v in VECTORS])
def test_verify_prints_the_expected_code(v):
    check = v["verify"]
    args = ["verify", "--token", v["token"], "--app-id", check["app_id"], "--channel", check["channel"],
            "--privilege", check["privilege"], "--now", str(check["now"]), *who(check)]
    if check["app_certificate"] is not None:
        args += ["--app-certificate", check["app_certificate"]]
    r = run(*args)
    code = int(r.stdout.split()[0])
    assert code == v["expected"]["code"], r.stdout
    assert (r.returncode == 0) == (code == 0)


@pytest.mark.parametrize("v", [v for v in VECTORS if v.get("mutation") is None and v["role"] is not None],
                         ids=lambda v: v["id"])
def test_build_reproduces_the_official_token(v):
    decoded = v["decoded"]
    if v["format"] == "007":
        privilege = next(iter(decoded["services"][0]["privileges"].values()))
        extra = ["--expire", str(decoded["expire"]), "--privilege-expire", str(privilege)]
    else:
        extra = ["--expire", "0", "--privilege-expire", str(v["privilege_expire"])]
    r = run("build", "--format", v["format"], "--app-id", v["app_id"], "--app-certificate", v["app_certificate"],
            "--channel", v["channel"], *who(v), "--role", v["role"], "--issue-ts", str(v["issue_ts"]),
            "--salt", str(v["salt"]), *extra)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == v["token"]


def test_inspect_shows_the_fields_of_a_token():
    v = VECTORS[0]
    r = run("inspect", v["token"])
    assert r.returncode == 0
    assert "issue_ts: 1111111" in r.stdout
    assert "identity: 2882341273" in r.stdout


def test_bad_usage_exits_2():
    assert run("frobnicate").returncode == 2
    assert run("build", "--format", "007").returncode == 2
    assert run("inspect", "not-a-token").returncode == 2
