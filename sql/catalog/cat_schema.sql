-- cat_schema: the table and view statements last applied to this warehouse, per set of SQL
-- folders (warehouse/db.py `apply_schema`), and the shape they left. Grain: set of folders. A run
-- whose statements have this digest, and whose tables, views and columns still have this shape,
-- does not apply them again (a table dropped or altered by hand is mended as before).
CREATE TABLE IF NOT EXISTS cat_schema (
    folders    VARCHAR NOT NULL PRIMARY KEY,   -- the folders, comma-separated, in order
    digest     VARCHAR NOT NULL,               -- SHA-256 of the folders' statements
    shape      VARCHAR NOT NULL                -- SHA-256 of every table, view, column and type
);
