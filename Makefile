.PHONY: install test lint bench

install:
	python -m pip install -e '.[test]'

test:
	python -m pytest -q

lint:
	ruff check reflectcli tests bench
	ruff format --check reflectcli tests bench

bench:
	bash bench/run_all.sh
