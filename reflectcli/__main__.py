from reflectcli.cli import main

main()
