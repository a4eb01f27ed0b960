/// A capability whose kept authorization a gate can read in place: the usual check of a kept
/// login, made by a worker for every procedure the login gates. Reading only the reason, under
/// the kept copy's own lock, spares the copy of the whole status out of it and its release (two
/// reference counts and a large value moved twice per check).
protocol KeptReasonReading: Sendable {
    /// The kept authorization's reason when one is held, has not run out, and its status meets
    /// `requirement`; nil otherwise (the gate then reads the status as usual, which also marks an
    /// authorization that ran out).
    func keptReason(meeting requirement: GrantRequirement) -> String?
}
