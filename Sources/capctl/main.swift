import CapctlCommand

await Capctl.runMain()
