"""The installed version of the harness, recorded in every results row."""

from importlib import metadata

try:
    __version__ = metadata.version("disentanglement-harness")
except metadata.PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.1.0+source"
