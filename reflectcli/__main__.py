from reflectcli.cli.app import main

main()
