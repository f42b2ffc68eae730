-- cat_input_stat: the content hash of an input file as last read, and what `stat` said of the
-- file while it was read (warehouse/staging.py). Grain: path x salt (the role and reader
-- settings hashed with the bytes). A file whose size, modification time (ns) and inode are the
-- same is known unchanged without reading it again; `--rehash` reads and hashes every file.
-- A file modified less than two seconds before it was read is not recorded (a rewrite within
-- the file system's timestamp resolution could keep the same time).
CREATE TABLE IF NOT EXISTS cat_input_stat (
    path       VARCHAR NOT NULL,
    salt       VARCHAR NOT NULL,
    size       BIGINT NOT NULL,
    mtime_ns   BIGINT NOT NULL,
    inode      UBIGINT NOT NULL,
    sha256     VARCHAR NOT NULL,          -- the content key (role, salt and bytes hashed)
    PRIMARY KEY (path, salt)
);
