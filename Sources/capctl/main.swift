import CapctlCommand

Capctl.main()
