await Capctl.runMain()
