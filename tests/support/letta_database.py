"""The PostgreSQL a real Letta server needs, made by the Python of the Letta server's venv
(tests/support/letta-server.txt), not by ours:

    python letta_database.py start FOLDER PORT    prints the database's URI for LETTA_PG_URI
    python letta_database.py stop FOLDER

pgserver's PostgreSQL (with pgvector) in FOLDER, listening on 127.0.0.1:PORT (pgserver itself
listens on a socket only, whose URI Letta's own URI handling cannot take).  Letta's Docker image
makes its tables with Alembic migrations the PyPI package does not carry, so they are made from
its ORM, with the one thing the ORM leaves to a migration: the sequence that numbers messages.
As root, pgserver runs PostgreSQL as a user of its own (PostgreSQL refuses root).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pgserver
from sqlalchemy import create_engine, text


def start(folder: Path, port: int) -> str:
    server = pgserver.get_server(folder, cleanup_mode=None)  # made, and started on a socket
    user = server.system_user
    pgserver.pg_ctl(["-w", "-m", "fast", "stop"], pgdata=folder, user=user)
    listen = f"-h 127.0.0.1 -p {port} -k {folder}"
    pgserver.pg_ctl(["-w", "-o", listen, "-l", str(folder / "log.txt"), "start"], pgdata=folder, user=user)
    root = f"postgresql+pg8000://postgres@127.0.0.1:{port}"
    with create_engine(f"{root}/postgres", isolation_level="AUTOCOMMIT").connect() as connection:
        connection.execute(text("CREATE DATABASE letta"))
    engine = create_engine(f"{root}/letta")
    with engine.begin() as connection:
        connection.execute(text("CREATE EXTENSION IF NOT EXISTS vector"))
    uri = f"postgresql://postgres:postgres@127.0.0.1:{port}/letta"
    os.environ["LETTA_PG_URI"] = uri  # Letta's ORM picks its column types (pgvector's) by it
    from letta.orm import Base

    Base.metadata.create_all(engine)
    with engine.begin() as connection:
        connection.execute(text("CREATE SEQUENCE message_sequence_id_seq OWNED BY messages.sequence_id"))
        connection.execute(
            text(
                "ALTER TABLE messages ALTER COLUMN sequence_id SET DEFAULT nextval('message_sequence_id_seq')"
            )
        )
    return uri


def stop(folder: Path) -> None:
    user = "pgserver" if os.geteuid() == 0 else None  # the user pgserver ran it as
    pgserver.pg_ctl(["-w", "-m", "fast", "stop"], pgdata=folder, user=user)


if __name__ == "__main__":
    if sys.argv[1] == "start":
        print(start(Path(sys.argv[2]), int(sys.argv[3])))
    else:
        stop(Path(sys.argv[2]))
