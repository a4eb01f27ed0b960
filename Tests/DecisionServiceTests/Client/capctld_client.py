#!/usr/bin/env python3
"""A client of capctld written without Swift: the varlink package from PyPI (pinned in
requirements.txt) for every call, and a raw socket only to send what that package would not
(broken messages, connections held open). Each command prints one JSON object per reply, or
{"error": NAME, "parameters": {...}} for a varlink error.

    capctld_client.py SOCKET info
    capctld_client.py SOCKET check GATE
    capctld_client.py SOCKET check-subject GATE [pid=N startTime=N uid=N | user=NAME]
    capctld_client.py SOCKET status
    capctld_client.py SOCKET repeat COUNT check GATE | repeat COUNT status
                                                   # COUNT calls on one connection; prints {"calls": COUNT}
    capctld_client.py SOCKET metrics               # root only: Prometheus's text, as {"text": ...}
    capctld_client.py SOCKET forget
    capctld_client.py SOCKET watch GATE COUNT      # the first COUNT replies, then closes
    capctld_client.py SOCKET authorize GATE        # answers each question with a line of stdin,
                                                   # declines when stdin ends
    capctld_client.py SOCKET authorize GATE close  # the same, but closes when stdin ends
    capctld_client.py SOCKET raw                   # sends stdin as is, prints what comes back
    capctld_client.py SOCKET hold COUNT FIFO       # COUNT connections, each asked GetInfo once,
                                                   # then kept open until FIFO is written and closed
    capctld_client.py SOCKET authorize GATE FIFO   # answers from the named pipe FIFO instead
"""
import json
import socket
import sys

import varlink


def emit(value):
    print(json.dumps(value, sort_keys=True), flush=True)


def as_dict(value):
    if isinstance(value, dict):
        return {key: as_dict(item) for key, item in value.items()}
    if isinstance(value, list):
        return [as_dict(item) for item in value]
    if hasattr(value, "__dict__"):
        return {key: as_dict(item) for key, item in vars(value).items()}
    return value


def main():
    path, command, arguments = sys.argv[1], sys.argv[2], sys.argv[3:]
    if command == "raw":
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        connection.connect(path)
        try:
            connection.sendall(sys.stdin.buffer.read())
            connection.shutdown(socket.SHUT_WR)
        except (BrokenPipeError, ConnectionResetError):
            pass  # closed on us (refused, or done with us): what it sent is read below
        received = receive(connection)
        for message in received.split(b"\0"):
            if message:
                emit(json.loads(message))
        emit({"closed": True})
        return
    if command == "authorize":
        # A named pipe is opened only when the first question comes: opening it waits for a writer.
        closes = arguments[1:] == ["close"]
        answers = Answers(arguments[1]) if len(arguments) > 1 and not closes else sys.stdin
        authorize(path, arguments[0], answers, closes)
        return
    if command == "hold":
        hold(path, int(arguments[0]), arguments[1])
        return
    if command == "pipeline":
        pipeline(path, int(arguments[0]), int(arguments[1]), arguments[2], arguments[3])
        return
    client = varlink.Client(address="unix:" + path)
    if command == "info":
        with client.open("org.varlink.service") as service:
            emit(as_dict(service.GetInfo()))
            emit(as_dict(service.GetInterfaceDescription("org.capctl.gates")))
        return
    with client.open("org.capctl.gates") as gates:
        try:
            if command == "check":
                emit(as_dict(gates.Check(arguments[0])))
            elif command == "check-subject":
                named = dict(argument.split("=", 1) for argument in arguments[1:])
                typed = {key: (value if key == "user" else int(value)) for key, value in named.items()}
                emit(as_dict(gates.CheckForSubject(gate=arguments[0], **typed)))
            elif command == "status":
                emit(as_dict(gates.Status()))
            elif command == "repeat":
                count, method = int(arguments[0]), arguments[1]
                for _ in range(count):
                    gates.Check(arguments[2]) if method == "check" else gates.Status()
                emit({"calls": count})
            elif command == "metrics":
                emit(as_dict(gates.Metrics()))
            elif command == "forget":
                emit(as_dict(gates.Forget()))
            elif command == "watch":
                count = int(arguments[1])
                for reply in gates.Watch(arguments[0], _more=True):
                    emit(as_dict(reply))
                    count -= 1
                    if count == 0:
                        break
            else:
                raise SystemExit("unknown command " + command)
        except varlink.VarlinkError as error:
            emit({"error": error.error(), "parameters": as_dict(error.parameters())})


def receive(connection, first_message_only=False):
    """What the service sends until it closes the connection (or resets it), or only up to the
    end of its first message."""
    received = b""
    while not (first_message_only and received.endswith(b"\0")):
        try:
            chunk = connection.recv(65536)
        except ConnectionResetError:
            break
        if not chunk:
            break
        received += chunk
    return received


class Answers:
    """Lines from a named pipe, opened at the first read."""

    def __init__(self, path):
        self.path, self.stream = path, None

    def readline(self):
        if self.stream is None:
            self.stream = open(self.path, "r")
        return self.stream.readline()


def hold(path, count, release):
    """Opens COUNT connections; each calls GetInfo and reads what comes back: its reply when it
    was admitted, the Busy error sent at once when it was not. Prints the counts, then holds the
    admitted ones open until the named pipe RELEASE is written and closed."""
    held, refused = [], 0
    for _ in range(count):
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        connection.connect(path)
        try:
            connection.sendall(b'{"method":"org.varlink.service.GetInfo"}\0')
        except (BrokenPipeError, ConnectionResetError):
            pass  # refused before the call went out: the refusal is waiting to be read
        received = receive(connection, first_message_only=True)
        message = json.loads(received.rstrip(b"\0")) if received else {}
        if message.get("error") == "org.capctl.gates.Busy":
            refused += 1
            connection.close()
        else:
            held.append(connection)
    emit({"held": len(held), "refused": refused})
    with open(release, "r") as pipe:
        pipe.read()
    for connection in held:
        connection.close()


def pipeline(path, count, calls, gate, release):
    """Opens COUNT connections and sends CALLS calls on each, Check of GATE and GetInfo in turn,
    reading no reply. Prints {"sent": COUNT}; once the named pipe RELEASE is written and closed,
    reads every reply and prints how many came on each connection and whether each answered its
    own call, in order."""
    connections = []
    check = json.dumps({"method": "org.capctl.gates.Check", "parameters": {"gate": gate}}).encode() + b"\0"
    info = b'{"method":"org.varlink.service.GetInfo"}\0'
    for _ in range(count):
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        connection.connect(path)
        connection.sendall(b"".join(check if index % 2 == 0 else info for index in range(calls)))
        connections.append(connection)
    emit({"sent": len(connections)})
    with open(release, "r") as pipe:
        pipe.read()
    counts, ordered = [], True
    for connection in connections:
        replies, buffer = 0, b""
        while replies < calls:
            chunk = connection.recv(65536)
            if not chunk:
                break
            buffer += chunk
            *messages, buffer = buffer.split(b"\0")
            for message in messages:
                reply = json.loads(message)
                parameters = reply.get("parameters", {})
                expected = "decision" if replies % 2 == 0 else "vendor"
                ordered = ordered and "error" not in reply and expected in parameters
                replies += 1
        counts.append(replies)
        connection.close()
    emit({"replies": counts, "ordered": ordered})


def authorize(path, gate, answers, closes=False):
    """Authorize with interaction, as the varlink package drives it: the questions are replies
    of a call with more; each answer is an Answer call on a second connection. Prints each reply.
    When the answers run out, declines (a null answer), which dismisses the login; with
    ANSWERS "close", closes the asking connection instead and prints {"closed": true}."""
    client = varlink.Client(address="unix:" + path)
    with client.open("org.capctl.gates") as asking, client.open("org.capctl.gates") as answering:
        try:
            for reply in asking.Authorize(gate=gate, allowInteractiveAuthentication=True, _more=True):
                reply = as_dict(reply)
                emit(reply)
                question = reply.get("question")
                if question and question["kind"] in ("secret", "visible"):
                    answer = answers.readline()
                    if not answer and closes:
                        emit({"closed": True})
                        return
                    answering.Answer(login=question["login"], answer=answer.rstrip("\n") if answer else None)
        except varlink.VarlinkError as error:
            emit({"error": error.error(), "parameters": as_dict(error.parameters())})


if __name__ == "__main__":
    main()
