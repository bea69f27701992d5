"""Running git in a test repository with a fixed identity and no user configuration."""

from __future__ import annotations

import subprocess
from pathlib import Path


def git(repository: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(repository), *args],
        check=True,
        capture_output=True,
        env={
            "GIT_AUTHOR_NAME": "Dev",
            "GIT_AUTHOR_EMAIL": "dev@example.com",
            "GIT_COMMITTER_NAME": "Dev",
            "GIT_COMMITTER_EMAIL": "dev@example.com",
            "HOME": str(repository),
            "PATH": "/usr/bin:/bin",
        },
    )
