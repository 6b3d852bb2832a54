"""Real projects of the three dispatch families beyond lionagi, fetched with nothing outside this
repository: each archive is downloaded once with pip (no dependencies, nothing installed or
imported) into the git-ignored ``.corpus/families/``, its sha256 checked against the pin below,
and unpacked there."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CACHE = REPO / ".corpus" / "families"


class Unavailable(RuntimeError):
    """An archive can be neither found nor fetched; the message names the fix."""


@dataclass(frozen=True)
class Archive:
    name: str  # on the package index
    version: str
    file: str  # the archive pip writes
    sha256: str

    @property
    def sdist(self) -> bool:
        return self.file.endswith(".tar.gz")


DJANGO = Archive("Django", "5.2", "Django-5.2.tar.gz",
                 "1a47f7a7a3d43ce64570d350e008d2949abe8c7e21737b351b6a1611277c6d89")
SIMPLE_HISTORY = Archive("django-simple-history", "3.13.0", "django_simple_history-3.13.0.tar.gz",
                         "ca3c1e4ccd5f16f45fbbef6015ee2a246465fd9bd924100df8e9dfb368c4f26c")
PELICAN = Archive("pelican", "4.12.0", "pelican-4.12.0.tar.gz",
                  "3983b5d2dc84c7bdf967154359077a2b78c0bbd2f7dcc55292133a7779609458")
XDIST = Archive("pytest-xdist", "3.8.0", "pytest_xdist-3.8.0.tar.gz",
                "7e578125ec9bc6050861aa93f2d59f1d8d085595d6551c2c90b6f4fad8d3a9f1")
PYTEST = Archive("pytest", "9.2.0", "pytest-9.2.0.tar.gz",
                 "97c4f3b1f3c7414aa36465e09b8220f1d03627993bd51b1282e193753c80557b")
PELICAN_PLUGINS = (
    Archive("pelican-jinja2content", "1.0.1", "pelican_jinja2content-1.0.1-py3-none-any.whl",
            "aeececa7a250aaa0d45a0887ef418409fbf5c89916387de2163b0f8f3bc4ab77"),
    Archive("pelican-neighbors", "1.2.0", "pelican_neighbors-1.2.0-py3-none-any.whl",
            "963df1d27dd8b34ac7b85320e63184d3f4e396e4570a3d49f5911246387a35bb"),
    Archive("pelican-read-more", "1.0.0", "pelican_read_more-1.0.0-py3-none-any.whl",
            "07fd821cbee659089101e147994f4544c77a5c9307478ab837a0712c67af3fbe"),
    Archive("pelican-related-posts", "1.0.0", "pelican_related_posts-1.0.0-py3-none-any.whl",
            "0f1dcdf34f90c41f275aba428879a5fde24e166cf0154d3a07d59cc5071976d5"),
    Archive("pelican-render-math", "1.0.5", "pelican_render_math-1.0.5-py3-none-any.whl",
            "6383b798aba721ed033a67bbc71c8f555b72c7d35e22a32477c958286f719eca"),
    Archive("pelican-seo", "1.4.0", "pelican_seo-1.4.0-py3-none-any.whl",
            "c0c69e83f5e4eacbe9d2128d0884f79432bd537e0928066f5e08d312d358d319"),
    Archive("pelican-series", "3.1.1", "pelican_series-3.1.1-py3-none-any.whl",
            "4f9134a6466ca50c3f4742a3b902fddd2a3c5421fabc32ac8cafcaf3f5246cc7"),
    Archive("pelican-sitemap", "1.2.2", "pelican_sitemap-1.2.2-py3-none-any.whl",
            "09ba150dd1b54ef855f18e7ec920160d7118e932e0dac1c6e8bf3a41e938e682"),
    Archive("pelican-statistics", "1.0.0", "pelican_statistics-1.0.0-py3-none-any.whl",
            "f2397fc1cee0731e65057d755c5aa8811d075b20c11b2bdc07a88ea7b7dc40e1"),
    Archive("pelican-webassets", "2.1.0", "pelican_webassets-2.1.0-py3-none-any.whl",
            "9df6659ecb565af88df55df4aac27cafc948299ef3d4fc743f7385db2e274475"),
    Archive("pelican-photos", "1.6.2", "pelican_photos-1.6.2-py3-none-any.whl",
            "b8044e2ee1e395048b41a8956354574e6255d62b83ff559a91953a335f91a627"),
    Archive("pelican-image-process", "3.4.0", "pelican_image_process-3.4.0-py3-none-any.whl",
            "b214a70a614fd40a96977f2ef386b6c912f24d03b6f737cd2f11ef9ca32724bf"),
    Archive("pelican-tag-cloud", "1.0.1", "pelican_tag_cloud-1.0.1-py3-none-any.whl",
            "0dee042f01821b6142f43907d27e3041b19677483f94cc9bf3162c209dbdd834"),
    Archive("pelican-simple-footnotes", "1.0.3", "pelican_simple_footnotes-1.0.3-py3-none-any.whl",
            "eefd69e577cb22709b661ec302b2e39ec9dce7bf002a6c260c735c030ba44e20"),
    Archive("pelican-readtime", "0.2.1", "pelican_readtime-0.2.1-py2.py3-none-any.whl",
            "22497c9dc83554f188d13af6a362d023b2c6e811af703553d99dfc404c52feec"),
)


def fetched(archive: Archive) -> Path:
    """The archive under the cache, downloaded and checked once."""
    path = CACHE / archive.file
    if not path.is_file():
        CACHE.mkdir(parents=True, exist_ok=True)
        kind = ["--no-binary", ":all:"] if archive.sdist else ["--only-binary", ":all:"]
        done = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", *kind,
             f"{archive.name}=={archive.version}", "-d", str(CACHE)],
            capture_output=True, text=True, timeout=600, check=False)
        if done.returncode != 0 or not path.is_file():
            raise Unavailable(f"cannot download {archive.name} {archive.version} from the package "
                              "index; run with the index reachable, or deselect with -m 'not "
                              f"corpus' ({done.stderr.strip().splitlines()[-1:] or ['no output']})")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != archive.sha256:
        path.unlink()
        raise Unavailable(f"{path} has sha256 {digest}, expected {archive.sha256}; removed it")
    return path


def unpacked(archive: Archive) -> Path:
    """The archive's contents, unpacked once into a folder of their own."""
    folder = CACHE / archive.file.removesuffix(".tar.gz").removesuffix(".whl")
    if not (folder / ".done").is_file():
        shutil.rmtree(folder, ignore_errors=True)
        source = fetched(archive)
        if archive.sdist:
            with tarfile.open(source) as tar:
                tar.extractall(folder, filter="data")
        else:
            with zipfile.ZipFile(source) as whl:
                whl.extractall(folder)
        (folder / ".done").write_text("")
    return folder


def django_contrib() -> Path:
    return unpacked(DJANGO) / f"Django-{DJANGO.version}" / "django" / "contrib"


def simple_history() -> Path:
    return unpacked(SIMPLE_HISTORY) / f"django_simple_history-{SIMPLE_HISTORY.version}" / \
        "simple_history"


def pelican() -> Path:
    return unpacked(PELICAN) / f"pelican-{PELICAN.version}" / "pelican"


def xdist() -> Path:
    return unpacked(XDIST) / f"pytest_xdist-{XDIST.version}" / "src" / "xdist"


def pytest_core() -> Path:
    return unpacked(PYTEST) / f"pytest-{PYTEST.version}" / "src" / "_pytest"


def pelican_plugins() -> Path:
    """One tree holding every plugin's ``pelican/plugins/<name>/`` (a namespace package)."""
    tree = CACHE / f"pelican-plugins-{len(PELICAN_PLUGINS)}"
    if not (tree / ".done").is_file():
        shutil.rmtree(tree, ignore_errors=True)
        for archive in PELICAN_PLUGINS:
            shutil.copytree(unpacked(archive) / "pelican", tree / "pelican", dirs_exist_ok=True)
        (tree / ".done").write_text("")
    return tree
