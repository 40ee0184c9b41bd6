"""Maps the repository folders onto the import name: sdk/ is ``panes``, runners/ is
``panes.runners`` (metadata lives in pyproject.toml)."""

from setuptools import find_packages, setup

packages = (["panes"] + [f"panes.{p}" for p in find_packages("sdk")]
            + ["panes.runners"] + [f"panes.runners.{p}" for p in find_packages("runners")])
setup(packages=packages, package_dir={"panes": "sdk", "panes.runners": "runners"},
      package_data={"panes.runners.spark": ["log4j2.properties"]})
