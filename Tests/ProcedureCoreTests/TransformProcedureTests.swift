import TestSupport
import Testing

@testable import ProcedureCore

/// `TransformProcedure`, `then`, and the collection steps built on it.
@Suite(.timeLimit(.minutes(2)))
struct TransformProcedureTests {
    @Test("a transform runs on its given input, or on a dependency's output, and chains with then")
    func transform() async throws {
        let given = TransformProcedure(name: "given", input: "twelve") { $0.count }
        await run(given)
        #expect(try await given.value() == 6)

        let fetch = TransformProcedure(name: "fetch", input: 4) { Array(repeating: "x", count: $0) }
        let count = TransformProcedure(name: "count", inputFrom: fetch) { $0.count }
        let doubled = count.then(name: "doubled") { $0 * 2 }
        let queue = ProcedureQueue()
        queue.addProcedures([doubled, count, fetch])
        #expect(try await doubled.value() == 8)
        #expect(doubled.dependencies.isEmpty, "a finished step lets go of its dependency")
    }

    /// Inputs and outputs are kept erased (`ErasedOutcome`): every shape of type comes back as itself,
    /// an optional's nil included (not taken for "no input" or "no output").
    @Test("inputs and outputs of any type come back as themselves: nil optionals, large values, existentials, classes")
    func typesKeptErased() async throws {
        struct Wide: Sendable, Equatable {
            var a = 1, b = 2, c = 3, d = 4, e = "wider than an existential's inline buffer"
        }
        final class Box: Sendable {}
        let box = Box()
        let none = TransformProcedure<Int?, Int?>(name: "none", input: .some(nil)) { $0.map { $0 + 1 } }
        let wide = TransformProcedure(name: "wide", input: Wide()) { value -> Wide in
            var copy = value
            copy.e += "!"
            return copy
        }
        let existential = TransformProcedure<Int, any Sendable>(name: "existential", input: 3) { $0 * 2 }
        let object = TransformProcedure(name: "object", input: box) { $0 }
        let optionalNext = none.then(name: "optional next") { $0 == nil ? "nil" : "some" }
        let queue = ProcedureQueue()
        queue.addProcedures([none, wide, existential, object, optionalNext])
        #expect(try await none.value() == nil)
        #expect(try await optionalNext.value() == "nil", "a nil output is an output, handed on")
        #expect(try await wide.value() == Wide(e: "wider than an existential's inline buffer!"))
        #expect(try await existential.value() as? Int == 6)
        #expect(try await object.value() === box)

        let batch = BatchProcedure(name: "wide batch", elements: [1, 2, 3], width: 2) { element in
            TransformProcedure<Int, Wide?>(input: element) { $0 == 2 ? nil : Wide(a: $0) }
        }
        queue.addProcedure(batch)
        #expect(try await batch.value() == [Wide(a: 1), nil, Wide(a: 3)])
    }

    @Test("a failing transform fails its step; a step whose input failed is cancelled and never transforms")
    func failures() async {
        let ran = Counter()
        let failing = TransformProcedure<Int, Int>(name: "failing", input: 1) { _ in throw TestError("bad input") }
        let next = failing.then(name: "next") { value -> Int in
            ran.increment()
            return value
        }
        let queue = ProcedureQueue()
        queue.addProcedures([failing, next])
        await next.waitUntilFinished()
        #expect((failing.error as? TestError) == TestError("bad input"))
        let error = next.error as? ProcedureError
        #expect(error?.code == .inputUnavailable)
        #expect(error?.procedures == ["failing"])
        #expect(next.isCancelled)
        #expect(ran.count == 0)
    }

    @Test("a transform with no input is misuse, and calling execute yourself runs nothing")
    func misuse() async {
        let ran = Counter()
        let orphan = TransformProcedure<Int, Int>(name: "orphan") { value in
            ran.increment()
            return value
        }
        orphan.execute()
        #expect(ran.count == 0)
        await run(orphan)
        #expect((orphan.error as? ProcedureError)?.code == .misuse)
        #expect(ran.count == 0)
    }

    @Test("map, filter and reduce keep the elements' order, from given elements or a dependency")
    func collections() async throws {
        let numbers = TransformProcedure(name: "numbers", input: 10) { Array(1...$0) }
        let squares = MapProcedure(name: "squares", inputFrom: numbers) { $0 * $0 }
        let odd = FilterProcedure(name: "odd", inputFrom: squares) { $0 % 2 == 1 }
        let sum = ReduceProcedure(name: "sum", inputFrom: odd, initial: 0) { $0 + $1 }
        let queue = ProcedureQueue()
        queue.addProcedures([sum, odd, squares, numbers])
        #expect(try await squares.value() == [1, 4, 9, 16, 25, 36, 49, 64, 81, 100])
        #expect(try await odd.value() == [1, 9, 25, 49, 81])
        #expect(try await sum.value() == 165)

        let names = MapProcedure(name: "names", elements: ["b", "a"]) { $0.uppercased() }
        let joined = ReduceProcedure(name: "joined", elements: ["x", "y", "z"], initial: "") { $0 + $1 }
        let short = FilterProcedure(name: "short", elements: ["a", "bbb", "cc"]) { $0.count < 3 }
        queue.addProcedures([names, joined, short])
        #expect(try await names.value() == ["B", "A"])
        #expect(try await joined.value() == "xyz")
        #expect(try await short.value() == ["a", "cc"])
    }

    @Test("an element that throws fails the whole map")
    func mapFailure() async {
        let map = MapProcedure(name: "map", elements: [1, 2, 3]) { element -> Int in
            if element == 2 { throw TestError("two") }
            return element
        }
        await run(map)
        #expect((map.error as? TestError) == TestError("two"))
    }
}
