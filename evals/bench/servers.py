"""Real mail and calendar servers on 127.0.0.1 for the delivery tests and
`kept bench delivery`: aiosmtpd (SMTP) in a thread, Radicale (CalDAV) in a
subprocess. Both come from PyPI (the `dev` extra). Passwords are made at run
time; nothing here is a fixture with a secret in it.

Each server counts what it received, so a test can say "delivered once":
``SmtpServer.messages`` holds every message the server accepted (a copy
accepted twice is two entries), and ``CaldavServer.objects()`` reads the
calendars back with an independent caldav client.
"""

from __future__ import annotations

import secrets
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from pathlib import Path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def make_password() -> str:
    return secrets.token_urlsafe(18)


# --- SMTP -------------------------------------------------------------------


@dataclass
class Received:
    sender: str
    recipients: list[str]
    raw: bytes

    @property
    def message(self):
        return message_from_bytes(self.raw, policy=policy.default)


@dataclass
class SmtpServer:
    """aiosmtpd on 127.0.0.1 with a login. ``reject`` addresses get 550; ``data_reply`` replaces the 250."""

    user: str = "kept-test"
    password: str = field(default_factory=make_password)
    reject: set[str] = field(default_factory=set)
    data_reply: str | None = None
    tls_context: object | None = None  # an ssl.SSLContext: offer STARTTLS
    implicit_tls: object | None = None  # an ssl.SSLContext: TLS from the first byte
    messages: list[Received] = field(default_factory=list)

    def __post_init__(self):
        self.port = free_port()
        self._lock = threading.Lock()
        self._controller = None

    @property
    def url(self) -> str:
        scheme = "smtps" if self.implicit_tls else "smtp"
        return f"{scheme}://{self.user}:{self.password}@127.0.0.1:{self.port}"

    def start(self) -> SmtpServer:
        from aiosmtpd.controller import Controller
        from aiosmtpd.smtp import AuthResult, LoginPassword

        server = self

        class Handler:
            async def handle_RCPT(self, smtp, session, envelope, address, rcpt_options):
                if address.lower() in {r.lower() for r in server.reject}:
                    return "550 5.1.1 mailbox unavailable"
                envelope.rcpt_tos.append(address)
                return "250 OK"

            async def handle_DATA(self, smtp, session, envelope):
                if server.data_reply:
                    return server.data_reply
                with server._lock:
                    server.messages.append(Received(envelope.mail_from, list(envelope.rcpt_tos), envelope.content))
                return f"250 2.0.0 Ok: queued as {len(server.messages)}"

        def authenticator(smtp, session, envelope, mechanism, auth_data):
            ok = (
                isinstance(auth_data, LoginPassword)
                and auth_data.login.decode() == self.user
                and auth_data.password.decode() == self.password
            )
            return AuthResult(success=ok, handled=False)

        kwargs = dict(
            hostname="127.0.0.1",
            port=self.port,
            authenticator=authenticator,
            auth_required=True,
            auth_require_tls=False,
        )
        if self.tls_context is not None:
            kwargs["tls_context"] = self.tls_context
        if self.implicit_tls is not None:
            kwargs["ssl_context"] = self.implicit_tls
        import logging
        import warnings

        logging.getLogger("mail.log").setLevel(logging.CRITICAL)
        # AUTH without TLS: on the loopback, on purpose (each connection would warn).
        warnings.filterwarnings("ignore", message="Requiring AUTH while not requiring TLS")
        warnings.filterwarnings("ignore", message="Session.login_data is deprecated")
        self._controller = Controller(Handler(), **kwargs)
        self._controller.start()
        return self

    def stop(self) -> None:
        if self._controller is not None:
            self._controller.stop()
            self._controller = None

    def __enter__(self) -> SmtpServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def message_ids(self) -> list[str]:
        with self._lock:
            return [str(m.message["Message-ID"]) for m in self.messages]


def self_signed_context():
    """A server TLS context with a fresh self-signed certificate for 127.0.0.1 (nothing trusts it)."""
    return self_signed()[0]


def self_signed():
    """(a server TLS context, the path of its certificate): trust the path (SSL_CERT_FILE) to connect."""
    import datetime
    import ipaddress
    import ssl
    import tempfile

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
        .sign(key, hashes.SHA256())
    )
    folder = Path(tempfile.mkdtemp(prefix="kept-tls-"))
    (folder / "cert.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (folder / "key.pem").write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(folder / "cert.pem", folder / "key.pem")
    return context, folder / "cert.pem"


class SilentServer:
    """Accepts connections and never says a word: a server that hangs."""

    def __init__(self):
        self.port = free_port()
        self._sock = socket.socket()
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", self.port))
        self._sock.listen(16)
        self._held: list[socket.socket] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)

    def _accept(self):
        self._sock.settimeout(0.2)
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
                self._held.append(conn)
            except OSError:
                continue

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(2)
        for conn in self._held:
            conn.close()
        self._sock.close()


class HttpStatusServer:
    """Answers every HTTP request with one status (a CalDAV server that is broken in one way)."""

    def __init__(self, status: int):
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        code = status

        class Handler(BaseHTTPRequestHandler):
            def _answer(self):
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                self.send_response(code)
                if code == 401:
                    self.send_header("WWW-Authenticate", 'Basic realm="test"')
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_GET = do_PUT = do_DELETE = do_PROPFIND = do_REPORT = do_OPTIONS = do_POST = do_MKCALENDAR = _answer

            def log_message(self, *args):
                pass

        self.port = free_port()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._httpd.shutdown()
        self._httpd.server_close()


# --- CalDAV -----------------------------------------------------------------


class CaldavServer:
    """Radicale on 127.0.0.1 in a subprocess, one user with a password made now, plain htpasswd."""

    def __init__(self, folder: Path, user: str = "kept-test"):
        self.folder = Path(folder)
        self.user = user
        self.password = make_password()
        self.port = free_port()
        self._proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def start(self) -> CaldavServer:
        self.folder.mkdir(parents=True, exist_ok=True)
        users = self.folder / "users"
        users.write_text(f"{self.user}:{self.password}\n")
        users.chmod(0o600)
        config = self.folder / "config"
        config.write_text(
            "[server]\n"
            f"hosts = 127.0.0.1:{self.port}\n"
            "[auth]\n"
            "type = htpasswd\n"
            f"htpasswd_filename = {users}\n"
            "htpasswd_encryption = plain\n"
            "delay = 0\n"
            "[storage]\n"
            f"filesystem_folder = {self.folder / 'collections'}\n"
            "[logging]\n"
            "level = warning\n"
        )
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "radicale", "--config", str(config)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                assert self._proc.stderr is not None  # stderr=PIPE
                raise RuntimeError(f"radicale exited: {self._proc.stderr.read().decode()[-800:]}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return self
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("radicale did not start within 30 s")

    def stop(self) -> None:
        if self._proc is not None:
            self._proc.terminate()
            try:
                self._proc.wait(10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
            self._proc = None

    def __enter__(self) -> CaldavServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # An independent client: the caldav library used directly, as another calendar app would.

    def client(self):
        import caldav

        return caldav.DAVClient(url=self.url, username=self.user, password=self.password, enable_rfc6764=False)

    def make_calendar(self, name: str = "Work", components=("VEVENT", "VTODO")):
        principal = self.client().principal()
        return principal.make_calendar(name=name, supported_calendar_component_set=list(components))

    def calendar(self, name: str = "Work"):
        for calendar in self.client().principal().calendars():
            if calendar.get_display_name() == name:
                return calendar
        raise LookupError(name)

    def uids(self, name: str = "Work", *, todo: bool = False) -> list[str]:
        """Every object's UID in the calendar (one entry per stored object: a duplicate shows twice)."""
        calendar = self.calendar(name)
        objects = calendar.todos(include_completed=True) if todo else calendar.events()
        return [str(o.icalendar_component.get("uid")) for o in objects]
