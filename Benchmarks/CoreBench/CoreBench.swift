@main struct CoreBench { static func main() async {} }
