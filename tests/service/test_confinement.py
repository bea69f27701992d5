"""A confined workspace (the daemon's) indexes only its folders and what allowedRoots allows."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ragls.errors import InvalidArgumentError
from ragls.service.guards.confinement import check_folder, check_index_path
from ragls.service.session.workspace import Workspace
from ragls.service.settings.options import WorkspaceOptions


@pytest.mark.parametrize(
    ("path", "what"),
    [("/", "the file-system root"), ("/etc", "a system directory"), ("/usr/lib", "a system")],
)
def test_system_folders_are_refused_naming_the_setting(path: str, what: str) -> None:
    with pytest.raises(InvalidArgumentError, match=f"{what}.*allowedRoots"):
        check_folder(Path(path))
    assert check_folder(Path(path), [Path(path)]) == Path(path).resolve()


def test_the_home_directory_itself_is_refused_but_not_a_project_in_it() -> None:
    with pytest.raises(InvalidArgumentError, match="the home directory itself"):
        check_folder(Path.home())
    assert check_folder(Path.home() / "src" / "project") == (Path.home() / "src/project").resolve()


def test_an_index_path_must_be_inside_a_folder_or_an_allowed_root(tmp_path: Path) -> None:
    folder, other = tmp_path / "ws", tmp_path / "other"
    (folder / "sub").mkdir(parents=True)
    other.mkdir()
    assert check_index_path(folder / "sub", [folder]) == (folder / "sub").resolve()
    with pytest.raises(InvalidArgumentError, match="outside the workspace folders"):
        check_index_path(other, [folder])
    assert check_index_path(other, [folder], [other]) == other.resolve()
    os.symlink("/etc", folder / "etc-link")  # a link is judged by where it leads
    with pytest.raises(InvalidArgumentError, match="outside the workspace folders"):
        check_index_path(folder / "etc-link", [folder])


def test_a_confined_workspace_refuses_the_root_folder_and_free_paths(tmp_path: Path) -> None:
    workspace = Workspace(WorkspaceOptions(watch=False), confined=True)
    with pytest.raises(InvalidArgumentError, match="file-system root"):
        workspace.open_folder("file:///")
    workspace.open_folder((tmp_path / "ws").as_uri())
    with pytest.raises(InvalidArgumentError, match="allowedRoots"):
        workspace.check_index_path("/etc")
    Workspace(WorkspaceOptions(watch=False)).check_index_path("/etc")  # the CLI's: unconfined
