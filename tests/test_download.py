"""eager.utils.download: a URL names a file in a cache folder; present files
come back (MD5 checked, archives unpacked), missing ones raise an error naming
the URL and the path to put the file at. Nothing is ever downloaded."""
import hashlib
import io
import os
import tarfile
import zipfile

import pytest

from eager.utils import download

URL = "https://example.com/models/tiny.pdparams"


def test_weights_path_names_the_url_and_where_to_put_the_file(monkeypatch, tmp_path):
    monkeypatch.setattr(download, "WEIGHTS_HOME", str(tmp_path))
    target = os.path.join(str(tmp_path), "tiny.pdparams")
    with pytest.raises(RuntimeError, match=r"get_weights_path_from_url: cannot download "
                                           r"https://example.com/models/tiny.pdparams: eager never downloads"
                                           r".*put 'tiny.pdparams' at " + repr(target).replace("\\", "\\\\")):
        download.get_weights_path_from_url(URL)
    assert os.listdir(tmp_path) == []  # nothing written


def test_weights_path_returns_the_cached_file_and_checks_its_md5(monkeypatch, tmp_path):
    monkeypatch.setattr(download, "WEIGHTS_HOME", str(tmp_path))
    data = b"weights"
    (tmp_path / "tiny.pdparams").write_bytes(data)
    assert download.get_weights_path_from_url(URL) == str(tmp_path / "tiny.pdparams")
    good = hashlib.md5(data).hexdigest()
    assert download.get_weights_path_from_url(URL, md5sum=good.upper()) == str(tmp_path / "tiny.pdparams")
    with pytest.raises(ValueError, match=f"has MD5 {good}, expected 0123"):
        download.get_weights_path_from_url(URL, md5sum="0123")


def _tar(path, members):
    with tarfile.open(path, "w:gz") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))


def test_an_archive_is_unpacked_once_beside_itself(tmp_path):
    _tar(tmp_path / "model.tar.gz", {"model/a.txt": b"a", "model/b.txt": b"b"})
    got = download.get_path_from_url("https://example.com/x/model.tar.gz", str(tmp_path))
    assert got == str(tmp_path / "model") and (tmp_path / "model" / "b.txt").read_bytes() == b"b"
    (tmp_path / "model" / "a.txt").write_bytes(b"kept")
    assert download.get_path_from_url("https://example.com/x/model.tar.gz", str(tmp_path)) == got
    assert (tmp_path / "model" / "a.txt").read_bytes() == b"kept"  # not unpacked again
    # several top-level entries: a folder named after the archive holds them
    with zipfile.ZipFile(tmp_path / "pair.zip", "w") as archive:
        archive.writestr("one.txt", "1")
        archive.writestr("two.txt", "2")
    got = download.get_path_from_url("https://example.com/x/pair.zip", str(tmp_path))
    assert got == str(tmp_path / "pair") and sorted(os.listdir(got)) == ["one.txt", "two.txt"]
    # decompress=False returns the archive itself
    assert download.get_path_from_url("https://example.com/x/pair.zip", str(tmp_path), decompress=False) == \
        str(tmp_path / "pair.zip")


def test_an_archive_member_outside_its_folder_is_refused(tmp_path):
    _tar(tmp_path / "evil.tar", {"../escape.txt": b"x"})
    with pytest.raises(ValueError, match="member outside its folder: '../escape.txt'"):
        download.get_path_from_url("https://example.com/evil.tar", str(tmp_path))
    assert not (tmp_path.parent / "escape.txt").exists()


@pytest.mark.parametrize("call, error, message", [
    (lambda: download.get_weights_path_from_url("resnet18.pdparams"), ValueError, "expected an http\\(s\\) URL"),
    (lambda: download.get_weights_path_from_url(URL, md5sum=123), TypeError, "'md5sum' expected a hex str"),
    (lambda: download.get_path_from_url(URL, 5), TypeError, "'root_dir' expected a folder path, got int"),
    (lambda: download.get_path_from_url(URL, ".", method="curl"), ValueError, "'method' expected 'get' or 'wget'"),
])
def test_bad_arguments(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_is_url():
    assert download.is_url(URL) and not download.is_url("/tmp/x") and not download.is_url(None)
