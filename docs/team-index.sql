-- A team index for ragls in PostgreSQL: one database, a publishing role, a reading role
-- (docs/storage.md, "A team index in PostgreSQL"). Run it as an administrator:
--
--     psql -U postgres -v ON_ERROR_STOP=1 -f docs/team-index.sql
--
-- then give each role a password with psql's \password ragls_publisher (and ragls_reader): it
-- sends a hash, never the password in clear. Rename the roles and the database to taste.
-- Every statement stands on its own line: CREATE DATABASE cannot run inside a transaction.

CREATE ROLE ragls_publisher LOGIN;
CREATE ROLE ragls_reader LOGIN;
CREATE DATABASE ragls_team OWNER ragls_publisher;

\connect ragls_team

-- Nobody else may connect. The publisher owns the database, so it may create the ragls tables
-- in the public schema; the first `ragls index --store` creates them, and a newer ragls
-- migrates them (the publisher owns them).
REVOKE ALL ON DATABASE ragls_team FROM PUBLIC;
GRANT CONNECT ON DATABASE ragls_team TO ragls_reader;
GRANT USAGE ON SCHEMA public TO ragls_reader;

-- Readers (laptops, daemons, ragls search --in-database) get SELECT on every table the
-- publisher creates, now and after a migration, and nothing else: they never write.
ALTER DEFAULT PRIVILEGES FOR ROLE ragls_publisher IN SCHEMA public GRANT SELECT ON TABLES TO ragls_reader;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO ragls_reader;
