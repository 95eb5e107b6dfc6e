"""reflectcli: plan, draft, critique and revise an article from the terminal."""

__version__ = "0.1.0"
