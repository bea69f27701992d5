# ruff: noqa: E501  (recipes of whole realistic lines read better unwrapped)
"""A corpus of planted secrets, generated at test time (docs/security.md).

Every value is made here from a seeded generator and a provider's published prefix and length,
so no real-looking secret is ever committed: the file holds recipes, not keys. Each
:class:`Planted` is a file (name and text) and the secret values it holds; the tests check that
none of them is stored, searched or returned verbatim through any door.
"""

from __future__ import annotations

import base64
import random
import string
from dataclasses import dataclass

ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"
PUNCT = "!@#%^*()-_=+"


@dataclass(frozen=True)
class Planted:
    kind: str
    file: str
    text: str
    secrets: tuple[str, ...]


class _Make:
    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)

    def chars(self, alphabet: str, length: int) -> str:
        while True:  # a real key mixes letters and digits
            value = "".join(self.random.choice(alphabet) for _ in range(length))
            if alphabet == HEX or (
                any(c.isdigit() for c in value) and any(c.isalpha() for c in value)
            ):
                return value

    def password(self, length: int = 20) -> str:
        return self.chars(ALNUM, length - 3) + self.random.choice(PUNCT) + "9x"


def planted_corpus(seed: int = 20261204) -> list[Planted]:
    """About seventy files, each holding one or more secrets of a known format."""
    m = _Make(seed)
    out: list[Planted] = []

    def add(kind: str, file: str, template: str, *values: str) -> None:
        out.append(Planted(kind, file, template.format(*values), values))

    aws_id = "AK" + "IA" + m.chars(string.ascii_uppercase + string.digits, 16)
    add(
        "aws-access-key",
        "deploy/aws.py",
        'AWS_ACCESS_KEY_ID = "{}"\nREGION = "eu-west-1"\n',
        aws_id,
    )
    add(
        "aws-secret-key",
        "conf/aws.ini",
        "[default]\naws_secret_access_key = {}\n",
        m.chars(B64, 40),
    )
    add("github-token", "ci/gh.py", 'GITHUB_TOKEN = "{}"\n', "gh" + "p_" + m.chars(ALNUM, 36))
    add(
        "github-token",
        "ci/pat.yaml",
        'token: "{}"\n',
        "github" + "_pat_" + m.chars(ALNUM + "_", 82),
    )
    add("github-token", "ci/oauth.json", '{{"oauth": "{}"}}\n', "gh" + "o_" + m.chars(ALNUM, 36))
    add(
        "github-token",
        "scripts/env.sh",
        "export GITHUB_TOKEN={}\n",
        "gh" + "s_" + m.chars(ALNUM, 36),
    )
    add(
        "gitlab-token",
        "scripts/gl.sh",
        "export GL_TOKEN={}\n",
        "gl" + "pat-" + m.chars(URLSAFE, 20),
    )
    add(
        "gitlab-token",
        "ci/gitlab.yml",
        "deploy:\n  token: {}\n",
        "gl" + "dt-" + m.chars(URLSAFE, 24),
    )
    add(
        "slack-token",
        "bot/slack.js",
        "const token = '{}';\n",
        "xo" + "xb-" + m.chars(HEX, 12) + "-" + m.chars(ALNUM, 24),
    )
    hook = (
        m.chars(string.ascii_uppercase + string.digits, 9)
        + "/B"
        + m.chars(string.ascii_uppercase + string.digits, 9)
        + "/"
        + m.chars(ALNUM, 24)
    )
    add(
        "slack-webhook", "bot/notify.py", 'WEBHOOK = "https://hooks.slack.com/services/T{}"\n', hook
    )
    add(
        "slack-webhook",
        "conf/alerts.yaml",
        "alerts:\n  url: https://hooks.slack.com/services/T{}\n",
        hook[::-1].upper(),
    )
    add(
        "stripe-key",
        "billing/stripe.rb",
        'Stripe.api_key = "{}"\n',
        "sk" + "_live_" + m.chars(ALNUM, 24),
    )
    add(
        "stripe-key",
        "billing/restricted.js",
        "stripe.key = '{}';\n",
        "rk" + "_live_" + m.chars(ALNUM, 30),
    )
    add(
        "google-api-key",
        "android/Maps.java",
        'String key = "{}";\n',
        "AI" + "za" + m.chars(URLSAFE, 35),
    )
    anthropic = "sk-" + "ant-api03-" + m.chars(URLSAFE, 93) + "AA"
    add("anthropic-key", "agent/claude.py", 'client = Anthropic(api_key="{}")\n', anthropic)
    add(
        "anthropic-key",
        "scripts/ask.sh",
        'curl https://api.anthropic.com/v1/messages \\\n  -H "x-api-key: {}" \\\n  -H "content-type: application/json"\n',
        "sk-" + "ant-admin01-" + m.chars(URLSAFE, 93),
    )
    add(
        "openai-key",
        "agent/openai_client.py",
        'openai.api_key = "{}"\n',
        "sk-" + "proj-" + m.chars(URLSAFE, 156),
    )
    add("openai-key", "web/chat.js", "const key = '{}';\n", "sk-" + m.chars(ALNUM, 48))
    add(
        "openai-key",
        "docs/curl.md",
        '```sh\ncurl https://api.openai.com/v1/chat/completions -H "Authorization: Bearer {}"\n```\n',
        "sk-" + "svcacct-" + m.chars(URLSAFE, 64),
    )
    add(
        "npm-token",
        "ci/npmrc.ci",
        "//registry.npmjs.org/:_authToken={}\n",
        "np" + "m_" + m.chars(ALNUM, 36),
    )
    add(
        "npm-token",
        "ci/publish.yml",
        "env:\n  NODE_AUTH_TOKEN: {}\n",
        "np" + "m_" + m.chars(ALNUM, 36),
    )
    add(
        "pypi-token",
        "scripts/release.sh",
        "TWINE_PASSWORD={} twine upload dist/*\n",
        "py" + "pi-AgEIcHlwaS5vcmc" + m.chars(URLSAFE, 60),
    )
    add(
        "sendgrid-key",
        "mail/send.py",
        'SENDGRID = "{}"\n',
        "S" + "G." + m.chars(URLSAFE, 22) + "." + m.chars(URLSAFE, 43),
    )
    add("twilio-key", "sms/twilio.js", "const apiKeySid = '{}';\n", "S" + "K" + m.chars(HEX, 32))
    add("twilio-token", "sms/twilio.py", 'TWILIO_AUTH_TOKEN = "{}"\n', m.chars(HEX, 32))
    add(
        "dockerhub-token",
        "scripts/docker.sh",
        "echo {} | docker login -u ci --password-stdin\n",
        "dckr" + "_pat_" + m.chars(URLSAFE, 27),
    )
    add(
        "digitalocean-token", "infra/do.yaml", "do:\n  api: {}\n", "do" + "p_v1_" + m.chars(HEX, 64)
    )
    add(
        "azure-storage-key",
        "Storage/Blob.cs",
        'var conn = "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={};EndpointSuffix=core.windows.net";\n',
        m.chars(B64, 86) + "==",
    )
    add(
        "azure-sas",
        "storage/sas.py",
        'URL = "https://acme.blob.core.windows.net/c/f.txt?sv=2022-11-02&se=2027-01-01&sp=r&sig={}"\n',
        m.chars(ALNUM, 43) + "%3D",
    )
    add(
        "url-password",
        "db/settings.py",
        'DATABASE_URL = "postgres://app:{}@db.internal:5432/app"\n',
        m.password(),
    )
    add(
        "url-password",
        "db/mongo.js",
        "const uri = 'mongodb+srv://svc:{}@cluster0.abcde.mongodb.net/prod';\n",
        m.password(),
    )
    add(
        "url-password",
        "conf/cache.yaml",
        "cache:\n  url: redis://:{}@cache.internal:6379/0\n",
        m.password(16),
    )
    add(
        "url-password",
        "scripts/mirror.sh",
        "git clone https://ci-bot:{}@git.internal/team/app.git\n",
        m.password(24),
    )
    add(
        "url-password",
        "conf/queue.toml",
        'broker = "amqp://worker:{}@mq.internal:5672//"\n',
        m.password(),
    )
    add(
        "env-line",
        "deploy/prod.env",
        "DEBUG=false\nDB_PASSWORD={}\nDB_HOST=db.internal\n",
        m.password(14),
    )
    add("env-line", "deploy/docker.env", "API_KEY={}\nLOG_LEVEL=info\n", m.chars(ALNUM, 32))
    add("env-line", "deploy/staging.env", "STRIPE_SECRET={}\n", m.chars(ALNUM, 24))
    add("env-line", "deploy/.envrc", "export AWS_SECRET_ACCESS_KEY={}\n", m.chars(B64, 40))
    add(
        "env-line",
        "deploy/compose.yaml",
        "services:\n  db:\n    environment:\n      - POSTGRES_PASSWORD={}\n",
        m.password(12),
    )
    add("yaml-password", "conf/db.yaml", "database:\n  user: app\n  password: {}\n", m.password(12))
    add(
        "yaml-password",
        "conf/app.yml",
        "app:\n  mail:\n    smtp_password: {}  # rotate\n",
        m.password(10),
    )
    add("yaml-password", "conf/keys.yaml", "service:\n  apiKey: {}\n", m.chars(ALNUM, 28))
    add("yaml-password", "conf/oauth.yaml", "oauth:\n  client_secret: {}\n", m.chars(URLSAFE, 40))
    add(
        "properties",
        "conf/application.properties",
        "spring.datasource.password={}\n",
        m.password(16),
    )
    add("ini", "conf/service.ini", "[db]\npassword = {}\n", m.password(14))
    add("toml", "conf/service.toml", '[api]\ntoken = "{}"\n', m.chars(ALNUM, 32))
    django = "django-insecure-" + m.chars(ALNUM + PUNCT, 50)
    add("django", "site/settings.py", "SECRET_KEY = '{}'\nDEBUG = False\n", django)
    add("django", "site/prod_settings.py", 'SECRET_KEY = "{}"\n', m.chars(ALNUM + PUNCT, 50))
    first, second = (base64.b64encode(m.password().encode()).decode() for _ in range(2))
    add(
        "kubernetes-secret",
        "k8s/db-secret.yaml",
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\ndata:\n  username: {}\n  password: {}\n",
        first,
        second,
    )
    add(
        "kubernetes-secret",
        "k8s/api-secret.yml",
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: api\nstringData:\n  token: {}\n",
        m.chars(ALNUM, 20),
    )
    body = "\n".join(m.chars(B64, 64) for _ in range(6))
    add(
        "private-key",
        "keys/notes.md",
        "# Keys\n\n-----BEGIN RSA PRIVATE KEY-----\n{}\n-----END RSA PRIVATE KEY-----\n\nRotate yearly.\n",
        body,
    )
    inline = "\\n".join(m.chars(B64, 64) for _ in range(5))
    add(
        "private-key",
        "keys/inline.py",
        'KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\\n{}\\n-----END OPENSSH PRIVATE KEY-----"\n',
        inline,
    )
    add(
        "private-key",
        "keys/cut.py",
        'KEY = "-----BEGIN PRIVATE KEY-----\\n{}"\n\n\ndef rotate_keys(store):\n    return store.flush_unique_marker()\n',
        m.chars(B64, 64),
    )
    add(
        "private-key",
        "keys/ec.yaml",
        "tls:\n  key: |\n    -----BEGIN EC PRIVATE KEY-----\n    {}\n    -----END EC PRIVATE KEY-----\n",
        m.chars(B64, 64),
    )
    jwt = (
        "ey"
        + "J"
        + m.chars(URLSAFE, 20)
        + ".ey"
        + "J"
        + m.chars(URLSAFE, 40)
        + "."
        + m.chars(URLSAFE, 43)
    )
    add("jwt", "web/session.js", "const session = '{}';\n", jwt)
    add(
        "json",
        "conf/oauth.json",
        '{{\n  "client_id": "abc",\n  "client_secret": "{}"\n}}\n',
        m.chars(URLSAFE, 40),
    )
    add("json", "web/firebase.json", '{{"apiKey": "{}"}}\n', m.chars(URLSAFE, 30))
    add(
        "bearer",
        "api/requests.http",
        "GET https://api.internal/v1/me\nAuthorization: Bearer {}\n",
        m.chars(URLSAFE, 40),
    )
    add(
        "connection-string",
        "Data/Db.cs",
        'var c = "Server=db;Database=app;User Id=app;Password={};";\n',
        m.chars(ALNUM, 20),
    )
    add(
        "compose",
        "deploy/docker-compose.yml",
        "services:\n  api:\n    environment:\n      API_TOKEN: {}\n",
        m.chars(ALNUM, 30),
    )
    add("go", "cmd/client.go", 'const apiKey = "{}"\n', m.chars(ALNUM, 32))
    add("java", "src/Config.java", 'private static final String PASSWORD = "{}";\n', m.password(20))
    add("kotlin", "app/Keys.kt", 'val token = "{}"\n', m.chars(ALNUM, 32))
    add("php", "app/config.php", "return ['password' => '{}'];\n", m.password(18))
    add("swift", "App/Keys.swift", 'let apiKey = "{}"\n', m.chars(ALNUM, 32))
    add("lua", "nvim/secret.lua", 'local password = "{}"\n', m.password(20))
    add(
        "elixir",
        "config/prod.exs",
        'config :app, App.Endpoint, secret_key_base: "{}"\n',
        m.chars(ALNUM, 64),
    )
    add(
        "terraform",
        "infra/main.tf",
        'resource "db" "main" {{\n  password = "{}"\n}}\n',
        m.password(20),
    )
    add("ruby", "config/creds.rb", "ACCESS_TOKEN = '{}'\n", m.chars(ALNUM, 40))
    return out


def added_document_with_secret(seed: int = 7) -> tuple[str, str]:
    """A note an assistant might add, holding one key; returns (text, key)."""
    key = "gh" + "p_" + _Make(seed).chars(ALNUM, 36)
    return f"Deploy notes: use GITHUB_TOKEN={key} for the release job.", key
