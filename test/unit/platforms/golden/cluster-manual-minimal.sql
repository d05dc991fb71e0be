-- ===== initial-create =====
-- ClusterWarehouse initial setup: system user, groups and the managed database

-- Run as a superuser (or a user with CREATEDB and CREATEUSER).
CREATE USER "service_system_user" PASSWORD 'S3cret-pass';
CREATE GROUP "service_system";
ALTER GROUP "service_system" ADD USER "service_system_user";
CREATE DATABASE "service_db" OWNER "service_system_user";
REVOKE ALL ON DATABASE "service_db" FROM PUBLIC;
GRANT ALL ON DATABASE "service_db" TO GROUP "service_system";

-- ===== create =====
-- ClusterWarehouse setup: schemas and grants in the managed database

-- Run as the same privileged user, connected to the managed database.
-- Connect to database "service_db" first.
CREATE SCHEMA "service_metadata" AUTHORIZATION "service_system_user";
CREATE SCHEMA "service_policies" AUTHORIZATION "service_system_user";
GRANT ALL ON SCHEMA "service_metadata" TO GROUP "service_system";
GRANT ALL ON SCHEMA "service_policies" TO GROUP "service_system";

-- ===== cleanup =====
-- ClusterWarehouse removal

-- Run as a superuser, connected to a database other than the managed one.
DROP DATABASE "service_db";
ALTER GROUP "service_system" DROP USER "service_system_user";
DROP GROUP "service_system";
DROP USER "service_system_user";

-- ===== delete =====
-- ClusterWarehouse removal

-- Run as a superuser, connected to a database other than the managed one.
DROP DATABASE "service_db";
ALTER GROUP "service_system" DROP USER "service_system_user";
DROP GROUP "service_system";
DROP USER "service_system_user";
