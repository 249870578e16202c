"""RTC tokens with the names of Agora's Python token builders.

This module builds and reads the two RTC token formats of docs/tokens.md, byte
for byte as Agora's official Python builders do (PyPI ``agoraiotools``:
``RtcTokenBuilder2.py`` / ``AccessToken2.py`` for AccessToken2 ``"007"``,
``RtcTokenBuilder.py`` / ``AccessToken.py`` for AccessToken ``"006"``) and as
the ``agoraish-token build`` command does::

    from agoraish.token import RtcTokenBuilder, Role_Publisher

    token = RtcTokenBuilder.build_token_with_uid(
        app_id, app_certificate, "demo", 1001, Role_Publisher, token_expire=3600)

Names, arguments and defaults are Agora's, with three differences:

* bad input raises :class:`ValueError` where Agora's builders return an empty
  string (app ID or certificate not 32 hexadecimal characters) or fail later;
* every builder takes the keyword-only arguments ``issue_ts`` and ``salt``,
  which pin the otherwise current time and random salt (the ``--issue-ts`` and
  ``--salt`` of ``agoraish-token build``), so a token can be reproduced;
* the 006 classes, which Agora also calls ``RtcTokenBuilder`` and
  ``AccessToken`` in other modules, are :class:`RtcTokenBuilder006` and
  :class:`AccessToken006` here; the 007 token class, ``AccessToken`` in
  Agora's ``AccessToken2.py``, is :class:`AccessToken2`.

Channel names are encoded as given: a name the server would refuse on join
(over 63 bytes, or characters outside its set) still gets a genuine token, as
with the official builders; the join then fails with -102.

The module is pure Python (standard library only) and imports nothing else from
the ``agoraish`` package, so it needs no libagoraish. The package loads the
library only when something first needs it (creating an engine, say), so
``from agoraish.token import RtcTokenBuilder`` works where the library is
missing. The file also works on its own (copy it under another name, such as
``agoraish_token.py``, or use ``importlib.util.spec_from_file_location``; not
as a top-level module called ``token``, which is a standard-library name).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
import struct
import time
import zlib
from typing import Dict, List, Optional, Tuple, Union

__all__ = [
    "Role_Publisher", "Role_Subscriber", "Role_Attendee", "Role_Admin",
    "kJoinChannel", "kPublishAudioStream", "kPublishVideoStream", "kPublishDataStream",
    "VERSION_2", "VERSION_006", "MAX_PAYLOAD",
    "RtcTokenBuilder", "RtcTokenBuilder006", "AccessToken2", "AccessToken006", "Service", "ServiceRtc",
]

#: Role value of a host: the 007 and 006 builders grant all four RTC privileges.
Role_Publisher = 1
#: Role value of an audience member: the builders grant joining only.
Role_Subscriber = 2
#: 006 only, deprecated by Agora: same as :data:`Role_Publisher`.
Role_Attendee = 0
#: 006 only, deprecated by Agora: same as :data:`Role_Publisher`.
Role_Admin = 101

#: Privilege keys under Agora's 006 names (the 007 names are on :class:`ServiceRtc`).
kJoinChannel = 1
#: May publish an audio stream.
kPublishAudioStream = 2
#: May publish a video stream.
kPublishVideoStream = 3
#: May publish data-stream messages.
kPublishDataStream = 4

#: Prefix of an AccessToken2 token.
VERSION_2 = "007"
#: Prefix of an AccessToken (006) token.
VERSION_006 = "006"
#: Largest inflated 007 payload the parser accepts, in bytes (refuses compression bombs).
MAX_PAYLOAD = 64 * 1024

_U16_MAX = 0xFFFF
_U32_MAX = 0xFFFFFFFF
_SALT_MAX = 99_999_999  # the official builders draw the salt from 1 ... 99 999 999
_TOKEN_LIFETIME_006 = 86_400  # a 006 token expires this many seconds after it is made
_HEX32 = re.compile(r"[0-9A-Fa-f]{32}")
_BASE64 = re.compile(r"[A-Za-z0-9+/]*={0,2}")

Uid = Union[int, str]


# ---------------------------------------------------------------------------
# Checks of caller input (each raises ValueError naming the argument)
# ---------------------------------------------------------------------------


def _check_hex32(name: str, value: object) -> str:
    if not isinstance(value, str) or not _HEX32.fullmatch(value):
        raise ValueError(f"{name} must be 32 hexadecimal characters, got {value!r}")
    return value


def _check_u32(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= _U32_MAX:
        raise ValueError(f"{name} must be an integer 0...4294967295, got {value!r}")
    return value


def _text_field(name: str, value: object) -> bytes:
    """The UTF-8 bytes of `value`, which must fit a u16-length-prefixed field."""
    if not isinstance(value, str):
        raise ValueError(f"{name} must be a str, got {type(value).__name__}")
    try:
        data = value.encode("utf-8")
    except UnicodeEncodeError as error:
        raise ValueError(f"{name} is not encodable as UTF-8: {error}") from None
    if len(data) > _U16_MAX:
        raise ValueError(f"{name} is longer than 65535 bytes")
    return data


def _channel_bytes(channel_name: object) -> bytes:
    data = _text_field("channel_name", channel_name)
    if not data:
        raise ValueError("channel_name must not be empty")
    return data


def _uid_bytes(uid: object) -> bytes:
    """The identity string of a numeric uid: b"" for 0 (any user), else its decimal text."""
    value = _check_u32("uid", uid)
    return b"" if value == 0 else str(value).encode("ascii")


def _identity_bytes(account: object) -> bytes:
    """The identity string of a user account (str, "" = any user) or, as in Agora's builders, of an int uid."""
    if isinstance(account, int) and not isinstance(account, bool):
        return _uid_bytes(account)
    return _text_field("account", account)


def _salt_or_random(salt: Optional[int]) -> int:
    return secrets.randbelow(_SALT_MAX) + 1 if salt is None else _check_u32("salt", salt)


def _issue_ts_or_now(issue_ts: Optional[int]) -> int:
    return int(time.time()) if issue_ts is None or issue_ts == 0 else _check_u32("issue_ts", issue_ts)


# ---------------------------------------------------------------------------
# Wire helpers (docs/tokens.md: little-endian u16/u32, u16-prefixed bytes, u32map)
# ---------------------------------------------------------------------------


def _u16(value: int) -> bytes:
    return struct.pack("<H", value)


def _u32(value: int) -> bytes:
    return struct.pack("<I", value)


def _string(data: bytes) -> bytes:
    return _u16(len(data)) + data


def _u32map(entries: Dict[int, int]) -> bytes:
    return _u16(len(entries)) + b"".join(_u16(k) + _u32(entries[k]) for k in sorted(entries))


class _Reader:
    """Bounds-checked little-endian reads; running past the end raises ValueError."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.offset = 0

    def take(self, n: int) -> bytes:
        if self.offset + n > len(self.data):
            raise ValueError("malformed token: a field runs past the end")
        chunk = self.data[self.offset:self.offset + n]
        self.offset += n
        return chunk

    def u16(self) -> int:
        return struct.unpack("<H", self.take(2))[0]

    def i16(self) -> int:
        return struct.unpack("<h", self.take(2))[0]

    def u32(self) -> int:
        return struct.unpack("<I", self.take(4))[0]

    def string(self) -> bytes:
        return self.take(self.u16())

    def u32map(self) -> Dict[int, int]:
        entries: Dict[int, int] = {}
        for _ in range(self.u16()):
            key = self.u16()
            entries[key] = self.u32()
        return entries

    def rest(self) -> bytes:
        return self.data[self.offset:]


def _strict_base64(text: str) -> bytes:
    """Standard-alphabet Base64 with correct padding and no whitespace; ValueError otherwise."""
    if len(text) % 4 or not _BASE64.fullmatch(text):
        raise ValueError("malformed token: not strict Base64")
    return base64.b64decode(text, validate=True)


def _inflate(data: bytes) -> bytes:
    """One complete zlib stream of at most MAX_PAYLOAD bytes, nothing after it; ValueError otherwise."""
    inflater = zlib.decompressobj()
    try:
        payload = inflater.decompress(data, MAX_PAYLOAD + 1)
    except zlib.error as error:
        raise ValueError(f"malformed token: bad zlib data ({error})") from None
    if len(payload) > MAX_PAYLOAD or inflater.unconsumed_tail:
        raise ValueError(f"malformed token: payload larger than {MAX_PAYLOAD} bytes")
    if not inflater.eof:
        raise ValueError("malformed token: incomplete zlib stream")
    if inflater.unused_data:
        raise ValueError("malformed token: bytes after the zlib stream")
    return payload


def _hmac(key: bytes, message: bytes) -> bytes:
    return hmac.new(key, message, hashlib.sha256).digest()


# ---------------------------------------------------------------------------
# AccessToken2 ("007")
# ---------------------------------------------------------------------------


class Service:
    """One service record of an AccessToken2: a type and a privilege map (key -> expiry).

    Agora's builders use subclasses per service type; here only RTC has one
    (:class:`ServiceRtc`). A parsed record of another known type (2 RTM ...
    7 APaaS) is a plain ``Service`` whose fields after the privilege map are
    kept undecoded in :attr:`tail`, so it packs back to the same bytes.
    """

    def __init__(self, service_type: int, tail: bytes = b"") -> None:
        """A record of `service_type` (0...65535; ValueError otherwise) with no privileges."""
        if isinstance(service_type, bool) or not isinstance(service_type, int) or not 0 <= service_type <= _U16_MAX:
            raise ValueError(f"service_type must be an integer 0...65535, got {service_type!r}")
        self._type = service_type
        #: Privilege key -> expiry in seconds after the token's issue_ts (0 = until the token expires).
        self.privileges: Dict[int, int] = {}
        #: The record's encoded fields after the privilege map (empty for a new record).
        self.tail = bytes(tail)

    def service_type(self) -> int:
        """The record's type number (1 = RTC)."""
        return self._type

    def add_privilege(self, privilege: int, expire: int) -> None:
        """Grants `privilege` (a u16 key) until `expire` seconds after issue_ts (0: until the token expires);
        a second call for the same key replaces the first. ValueError for out-of-range numbers."""
        if isinstance(privilege, bool) or not isinstance(privilege, int) or not 0 <= privilege <= _U16_MAX:
            raise ValueError(f"privilege must be an integer 0...65535, got {privilege!r}")
        self.privileges[privilege] = _check_u32("expire", expire)

    def pack(self) -> bytes:
        """The record's bytes: u16 type, the privilege map in ascending key order, the type's fields."""
        return _u16(self._type) + _u32map(self.privileges) + self._pack_fields()

    def _pack_fields(self) -> bytes:
        return self.tail


class ServiceRtc(Service):
    """The RTC record (type 1) of an AccessToken2: privileges for one channel and one user."""

    #: The RTC service type.
    kServiceType = 1
    #: May join the channel and stay in it.
    kPrivilegeJoinChannel = 1
    #: May publish an audio stream.
    kPrivilegePublishAudioStream = 2
    #: May publish a video stream.
    kPrivilegePublishVideoStream = 3
    #: May send data-stream messages.
    kPrivilegePublishDataStream = 4

    def __init__(self, channel_name: str, uid: Uid = 0) -> None:
        """A record for `channel_name` (non-empty str) and `uid`: an int 0...4294967295 (0 = any user) or a
        user account str ("" = any user; "0" is the account "0"). ValueError for anything else."""
        super().__init__(ServiceRtc.kServiceType)
        #: The channel name's UTF-8 bytes.
        self.channel_name = _channel_bytes(channel_name)
        #: The identity string: b"" for any user, a uid's decimal text, or an account's UTF-8 bytes.
        self.uid = _identity_bytes(uid)

    @classmethod
    def _parsed(cls, privileges: Dict[int, int], channel_name: bytes, uid: bytes) -> "ServiceRtc":
        service = cls.__new__(cls)
        Service.__init__(service, cls.kServiceType)
        service.privileges = privileges
        service.channel_name = channel_name
        service.uid = uid
        return service

    def _pack_fields(self) -> bytes:
        return _string(self.channel_name) + _string(self.uid)


# Fields after the privilege map of the non-RTC service types the format describes (docs/tokens.md):
# "s" a u16-prefixed string, "h" an i16.
_SERVICE_FIELDS = {2: "s", 3: "ss", 4: "", 5: "s", 6: "ss", 7: "ssh"}


class AccessToken2:
    """An AccessToken2 ("007"): app ID, issue time, lifetime, salt and service records, signed with the app
    certificate. Build one with :meth:`add_service` and :meth:`build`, or read one with :meth:`parse`.

    The object owns plain Python values only. Attributes may be changed before
    :meth:`build`; :attr:`salt` and :attr:`issue_ts` are the ones to pin for a
    reproducible token.
    """

    def __init__(self, app_id: str = "", app_certificate: str = "", issue_ts: int = 0, expire: int = 900,
                 *, salt: Optional[int] = None) -> None:
        """A token without services. `app_id` and `app_certificate` are 32 hexadecimal characters, or ""
        (then :meth:`build` refuses; enough for :meth:`from_string`). `issue_ts` is unix seconds (0: now),
        `expire` the lifetime in seconds after it, `salt` the u32 salt (None: random in 1...99999999).
        ValueError for anything else."""
        #: The app ID text (used as ASCII, never hex-decoded).
        self.app_id = app_id if app_id == "" else _check_hex32("app_id", app_id)
        #: The app certificate text, the signing secret (used as ASCII, letter case included).
        self.app_certificate = app_certificate if app_certificate == "" else _check_hex32(
            "app_certificate", app_certificate)
        #: Unix seconds at which the token is made.
        self.issue_ts = _issue_ts_or_now(issue_ts)
        #: Token lifetime in seconds after issue_ts (0: expired from the start).
        self.expire = _check_u32("expire", expire)
        #: The salt mixed into the signing key.
        self.salt = _salt_or_random(salt)
        #: The service records, in token order (build() writes them by ascending type).
        self.services: List[Service] = []
        #: A parsed token's 32-byte signature (b"" for a token not parsed).
        self.signature = b""
        #: A parsed token's signed bytes, exactly as in the token (b"" for a token not parsed).
        self.signed_region = b""

    def add_service(self, service: Service) -> None:
        """Adds `service`, replacing a record of the same type (as Agora's builder does)."""
        self.services = [s for s in self.services if s.service_type() != service.service_type()] + [service]

    def build(self) -> str:
        """The token text: "007" + Base64(zlib(signature, signed region)). ValueError when the app ID or
        certificate is not 32 hexadecimal characters, a number is out of range, or there is no service."""
        _check_hex32("app_id", self.app_id)
        certificate = _check_hex32("app_certificate", self.app_certificate).encode("ascii")
        for name in ("issue_ts", "expire", "salt"):
            _check_u32(name, getattr(self, name))
        if not self.services:
            raise ValueError("a token needs at least one service")
        services = sorted(self.services, key=lambda s: s.service_type())
        region = (_string(self.app_id.encode("ascii")) + _u32(self.issue_ts) + _u32(self.expire)
                  + _u32(self.salt) + _u16(len(services)) + b"".join(s.pack() for s in services))
        signature = self._sign(certificate, self.issue_ts, self.salt, region)
        return VERSION_2 + base64.b64encode(zlib.compress(_string(signature) + region)).decode("ascii")

    @staticmethod
    def _sign(certificate: bytes, issue_ts: int, salt: int, region: bytes) -> bytes:
        key = _hmac(_u32(salt), _hmac(_u32(issue_ts), certificate))
        return _hmac(key, region)

    @classmethod
    def parse(cls, token: str) -> "AccessToken2":
        """Reads a 007 token strictly (docs/tokens.md section 2.5) without checking its signature.
        ValueError for anything malformed: prefix, Base64, zlib, lengths, a signature not 32 bytes.
        RTC records become :class:`ServiceRtc`, other known types :class:`Service`; reading stops at a
        type the format does not describe (the bytes after it stay covered by :attr:`signed_region`)."""
        if not isinstance(token, str) or len(token) < 4 or not token.startswith(VERSION_2):
            raise ValueError("malformed token: not a 007 token")
        reader = _Reader(_inflate(_strict_base64(token[3:])))
        signature = reader.string()
        if len(signature) != 32:
            raise ValueError("malformed token: the signature is not 32 bytes")
        parsed = cls.__new__(cls)
        parsed.signature = signature
        parsed.signed_region = reader.rest()
        parsed.app_certificate = ""
        parsed.app_id = reader.string().decode("latin-1")
        parsed.issue_ts = reader.u32()
        parsed.expire = reader.u32()
        parsed.salt = reader.u32()
        parsed.services = []
        for _ in range(reader.u16()):
            service_type = reader.u16()
            if service_type == ServiceRtc.kServiceType:
                privileges = reader.u32map()
                parsed.services.append(ServiceRtc._parsed(privileges, reader.string(), reader.string()))
            elif service_type in _SERVICE_FIELDS:
                service = Service(service_type)
                service.privileges = reader.u32map()
                start = reader.offset
                for field in _SERVICE_FIELDS[service_type]:
                    if field == "s":
                        reader.string()
                    else:
                        reader.i16()
                service.tail = reader.data[start:reader.offset]
                parsed.services.append(service)
            else:
                break
        return parsed

    def from_string(self, origin_token: str) -> bool:
        """Agora's reader: replaces this object's fields with those of `origin_token`, keeping
        :attr:`app_certificate`. False when the token is not "007"; ValueError when it is malformed."""
        if not isinstance(origin_token, str) or not origin_token.startswith(VERSION_2):
            return False
        parsed = self.parse(origin_token)
        certificate = self.app_certificate
        self.__dict__.update(parsed.__dict__)
        self.app_certificate = certificate
        return True

    def verify_signature(self, app_certificate: str) -> bool:
        """Whether a parsed token's signature is the one `app_certificate` gives over the signed bytes as
        they were read (constant-time compare). ValueError for a certificate not 32 hex characters."""
        certificate = _check_hex32("app_certificate", app_certificate).encode("ascii")
        expected = self._sign(certificate, self.issue_ts, self.salt, self.signed_region)
        return hmac.compare_digest(expected, self.signature)

    def rtc_services(self) -> List[ServiceRtc]:
        """The RTC records, in token order."""
        return [s for s in self.services if isinstance(s, ServiceRtc)]


class RtcTokenBuilder:
    """Agora's RtcTokenBuilder2 for AccessToken2 ("007") RTC tokens. All methods are static and return the
    token text; they raise ValueError for an app ID or certificate that is not 32 hexadecimal characters,
    an empty or over-long channel name, a bad uid or account, or a number outside 0...4294967295.

    Expiries are in seconds: `token_expire` after the issue time (the token's
    lifetime), each privilege expiry after the issue time too (0: until the
    token expires). The keyword-only `issue_ts` (unix seconds) and `salt` pin the
    current time and the random salt.
    """

    @staticmethod
    def build_token_with_uid(app_id: str, app_certificate: str, channel_name: str, uid: int, role: int,
                             token_expire: int, privilege_expire: int = 0, *, issue_ts: Optional[int] = None,
                             salt: Optional[int] = None) -> str:
        """A token for `uid` (int 0...4294967295; 0 lets any user join with it) in `channel_name`.
        `role` :data:`Role_Publisher` grants joining and publishing audio, video and data streams;
        :data:`Role_Subscriber` (or any other value, as in Agora's builder) joining only."""
        _uid_bytes(uid)
        return RtcTokenBuilder.build_token_with_user_account(
            app_id, app_certificate, channel_name, uid, role, token_expire, privilege_expire,
            issue_ts=issue_ts, salt=salt)

    @staticmethod
    def build_token_with_user_account(app_id: str, app_certificate: str, channel_name: str, account: Uid,
                                      role: int, token_expire: int, privilege_expire: int = 0, *,
                                      issue_ts: Optional[int] = None, salt: Optional[int] = None) -> str:
        """A token for the user account `account` (str; "" lets any user join, "12345" encodes like uid
        12345) in `channel_name`; roles as in :meth:`build_token_with_uid`."""
        if isinstance(role, bool) or not isinstance(role, int):
            raise ValueError(f"role must be an int, got {role!r}")
        keys = [ServiceRtc.kPrivilegeJoinChannel]
        if role == Role_Publisher:
            keys += [ServiceRtc.kPrivilegePublishAudioStream, ServiceRtc.kPrivilegePublishVideoStream,
                     ServiceRtc.kPrivilegePublishDataStream]
        return RtcTokenBuilder._build(app_id, app_certificate, channel_name, account, token_expire,
                                      {key: privilege_expire for key in keys}, issue_ts, salt)

    @staticmethod
    def build_token_with_uid_and_privilege(app_id: str, app_certificate: str, channel_name: str, uid: int,
                                           token_expire: int, join_channel_privilege_expire: int,
                                           pub_audio_privilege_expire: int, pub_video_privilege_expire: int,
                                           pub_data_stream_privilege_expire: int, *,
                                           issue_ts: Optional[int] = None, salt: Optional[int] = None) -> str:
        """A token for `uid` granting all four privileges, each with its own expiry (for co-host
        authentication)."""
        _uid_bytes(uid)
        return RtcTokenBuilder.build_token_with_user_account_and_privilege(
            app_id, app_certificate, channel_name, uid, token_expire, join_channel_privilege_expire,
            pub_audio_privilege_expire, pub_video_privilege_expire, pub_data_stream_privilege_expire,
            issue_ts=issue_ts, salt=salt)

    @staticmethod
    def build_token_with_user_account_and_privilege(app_id: str, app_certificate: str, channel_name: str,
                                                    account: Uid, token_expire: int,
                                                    join_channel_privilege_expire: int,
                                                    pub_audio_privilege_expire: int,
                                                    pub_video_privilege_expire: int,
                                                    pub_data_stream_privilege_expire: int, *,
                                                    issue_ts: Optional[int] = None,
                                                    salt: Optional[int] = None) -> str:
        """As :meth:`build_token_with_uid_and_privilege`, for a user account."""
        privileges = {
            ServiceRtc.kPrivilegeJoinChannel: join_channel_privilege_expire,
            ServiceRtc.kPrivilegePublishAudioStream: pub_audio_privilege_expire,
            ServiceRtc.kPrivilegePublishVideoStream: pub_video_privilege_expire,
            ServiceRtc.kPrivilegePublishDataStream: pub_data_stream_privilege_expire,
        }
        return RtcTokenBuilder._build(app_id, app_certificate, channel_name, account, token_expire, privileges,
                                      issue_ts, salt)

    @staticmethod
    def _build(app_id: str, app_certificate: str, channel_name: str, account: Uid, token_expire: int,
               privileges: Dict[int, int], issue_ts: Optional[int], salt: Optional[int]) -> str:
        _check_hex32("app_id", app_id)
        _check_hex32("app_certificate", app_certificate)
        token = AccessToken2(app_id, app_certificate, issue_ts or 0, token_expire, salt=salt)
        service = ServiceRtc(channel_name, account)
        for key, expire in privileges.items():
            service.add_privilege(key, expire)
        token.add_service(service)
        return token.build()


# ---------------------------------------------------------------------------
# AccessToken ("006")
# ---------------------------------------------------------------------------


class AccessToken006:
    """An AccessToken ("006"), with the camelCase names of Agora's ``AccessToken.py``: app ID, channel and
    identity bound by an HMAC with the certificate; a salt, the token's absolute expiry :attr:`ts` and
    absolute privilege expiries in :attr:`messages`.

    The object owns plain Python values only; attributes may be changed before
    :meth:`build`.
    """

    def __init__(self, appID: str = "", appCertificate: str = "", channelName: str = "", uid: Uid = "", *,
                 issue_ts: Optional[int] = None, salt: Optional[int] = None) -> None:
        """A token for `channelName` and `uid` (an int 0...4294967295, 0 = any user, or an account str,
        "" = any user). `issue_ts` (unix seconds, None or 0: now) sets :attr:`ts` to issue_ts + 86400;
        `salt` pins the salt (None: random in 1...99999999). The app ID and certificate are 32 hexadecimal
        characters or "" (then :meth:`build` refuses). ValueError for anything else."""
        #: The app ID text, written verbatim after "006".
        self.appID = appID if appID == "" else _check_hex32("appID", appID)
        #: The app certificate text, the HMAC key.
        self.appCertificate = appCertificate if appCertificate == "" else _check_hex32(
            "appCertificate", appCertificate)
        #: The channel name.
        self.channelName = channelName if channelName == "" else _channel_bytes(channelName).decode("utf-8")
        #: The identity string as text: "" for any user, a uid's decimal text, or the account.
        self.uidStr = _identity_bytes(uid).decode("utf-8")
        #: Absolute unix time at which the token expires.
        self.ts = _issue_ts_or_now(issue_ts) + _TOKEN_LIFETIME_006
        #: The salt inside the signed message.
        self.salt = _salt_or_random(salt)
        #: Privilege key -> absolute unix expiry of that privilege (0: until the token expires).
        self.messages: Dict[int, int] = {}
        #: A parsed token's 32-byte signature, CRC-32s of channel and identity, and signed message bytes.
        self.signature, self.crc_channel, self.crc_uid, self.message = b"", 0, 0, b""

    def addPrivilege(self, privilege: int, expireTimestamp: int) -> None:
        """Grants `privilege` (a u16 key) until the absolute unix time `expireTimestamp` (0: until the token
        expires). ValueError for out-of-range numbers."""
        if isinstance(privilege, bool) or not isinstance(privilege, int) or not 0 <= privilege <= _U16_MAX:
            raise ValueError(f"privilege must be an integer 0...65535, got {privilege!r}")
        self.messages[privilege] = _check_u32("expireTimestamp", expireTimestamp)

    def build(self) -> str:
        """The token text: "006" + app ID + Base64(signature, crc_channel, crc_uid, message). ValueError for
        an app ID or certificate not 32 hexadecimal characters, an empty channel, or numbers out of range."""
        app_id = _check_hex32("appID", self.appID).encode("ascii")
        certificate = _check_hex32("appCertificate", self.appCertificate).encode("ascii")
        channel = _channel_bytes(self.channelName)
        identity = _text_field("uidStr", self.uidStr)
        message = _u32(_check_u32("salt", self.salt)) + _u32(_check_u32("ts", self.ts)) + _u32map(self.messages)
        signature = _hmac(certificate, app_id + channel + identity + message)
        content = _string(signature) + _u32(zlib.crc32(channel)) + _u32(zlib.crc32(identity)) + _string(message)
        return VERSION_006 + self.appID + base64.b64encode(content).decode("ascii")

    @classmethod
    def parse(cls, token: str) -> "AccessToken006":
        """Reads a 006 token strictly (docs/tokens.md section 3.5) without checking its signature: sets
        appID, signature, crc_channel, crc_uid, message, salt, ts and messages; channelName and uidStr
        stay "" (the token holds only their CRCs). ValueError for anything malformed."""
        if not isinstance(token, str) or len(token) <= 35 or not token.isascii() or not token.startswith(VERSION_006):
            raise ValueError("malformed token: not a 006 token")
        reader = _Reader(_strict_base64(token[35:]))
        parsed = cls.__new__(cls)
        parsed.appID, parsed.appCertificate, parsed.channelName, parsed.uidStr = token[3:35], "", "", ""
        parsed.signature = reader.string()
        if len(parsed.signature) != 32:
            raise ValueError("malformed token: the signature is not 32 bytes")
        parsed.crc_channel = reader.u32()
        parsed.crc_uid = reader.u32()
        parsed.message = reader.string()
        if reader.rest():
            raise ValueError("malformed token: bytes after the message")
        inner = _Reader(parsed.message)
        parsed.salt = inner.u32()
        parsed.ts = inner.u32()
        parsed.messages = inner.u32map()
        return parsed

    def fromString(self, originToken: str) -> bool:
        """Agora's reader: replaces the parsed fields with those of `originToken`, keeping appCertificate,
        channelName and uidStr. False when the token is not "006"; ValueError when it is malformed."""
        if not isinstance(originToken, str) or not originToken.startswith(VERSION_006):
            return False
        parsed = self.parse(originToken)
        kept = (self.appCertificate, self.channelName, self.uidStr)
        self.__dict__.update(parsed.__dict__)
        self.appCertificate, self.channelName, self.uidStr = kept
        return True

    def verify_signature(self, appCertificate: str, channelName: str, uid: Uid) -> bool:
        """Whether a parsed token was made with `appCertificate` for `channelName` and `uid` exactly (the
        wildcard identity "" is not tried): both CRC-32s and the HMAC (constant-time compare) must match.
        ValueError for a bad certificate, channel or uid."""
        certificate = _check_hex32("appCertificate", appCertificate).encode("ascii")
        channel = _channel_bytes(channelName)
        identity = _identity_bytes(uid)
        if zlib.crc32(channel) != self.crc_channel or zlib.crc32(identity) != self.crc_uid:
            return False
        expected = _hmac(certificate, self.appID.encode("latin-1") + channel + identity + self.message)
        return hmac.compare_digest(expected, self.signature)


class RtcTokenBuilder006:
    """Agora's 006 RtcTokenBuilder (``buildTokenWithUid`` / ``buildTokenWithAccount``). Static methods return
    the token text, which expires 86400 s after it is made; `privilegeExpiredTs` is an absolute unix time
    (0: until the token expires). `role` :data:`Role_Publisher`, :data:`Role_Attendee` or
    :data:`Role_Admin` grants joining and publishing; :data:`Role_Subscriber` or any other value joining
    only. The keyword-only `issue_ts` and `salt` pin the time and salt. ValueError for an app ID or
    certificate not 32 hexadecimal characters (Agora's 006 builder does not check), an empty channel, a bad
    uid or account, or numbers out of range.
    """

    @staticmethod
    def buildTokenWithUid(appId: str, appCertificate: str, channelName: str, uid: int, role: int,
                          privilegeExpiredTs: int, *, issue_ts: Optional[int] = None,
                          salt: Optional[int] = None) -> str:
        """A 006 token for `uid` (int 0...4294967295; 0 lets any user join with it)."""
        _uid_bytes(uid)
        return RtcTokenBuilder006.buildTokenWithAccount(appId, appCertificate, channelName, uid, role,
                                                        privilegeExpiredTs, issue_ts=issue_ts, salt=salt)

    @staticmethod
    def buildTokenWithAccount(appId: str, appCertificate: str, channelName: str, account: Uid, role: int,
                              privilegeExpiredTs: int, *, issue_ts: Optional[int] = None,
                              salt: Optional[int] = None) -> str:
        """A 006 token for the user account `account` (str; "" lets any user join with it)."""
        if isinstance(role, bool) or not isinstance(role, int):
            raise ValueError(f"role must be an int, got {role!r}")
        _check_hex32("appId", appId)
        _check_hex32("appCertificate", appCertificate)
        token = AccessToken006(appId, appCertificate, channelName, account, issue_ts=issue_ts, salt=salt)
        keys: Tuple[int, ...] = (kJoinChannel,)
        if role in (Role_Attendee, Role_Publisher, Role_Admin):
            keys = (kJoinChannel, kPublishAudioStream, kPublishVideoStream, kPublishDataStream)
        for key in keys:
            token.addPrivilege(key, privilegeExpiredTs)
        return token.build()
