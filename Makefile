.PHONY: install test lint bench docs

install:
	python -m pip install -e '.[test]'

test:
	python -m pytest -q

lint:
	ruff check reflectcli tests bench docs
	ruff format --check reflectcli tests bench docs
	mypy

bench:
	bash bench/run_all.sh

docs:
	python docs/generate.py
	NO_MKDOCS_2_WARNING=1 mkdocs build --strict
