-- ===== initial-create =====
-- AnalyticsWarehouse initial setup (step 1 of 2): the login

-- Run as a server administrator, connected to master.
-- Connect to database "master" first.
CREATE LOGIN [service_user] WITH PASSWORD = N'S3cret-pass';

-- ===== create =====
-- AnalyticsWarehouse setup (step 2 of 2): user, schema and grants

-- Run as the database owner, connected to the database.
-- Connect to database "sales" first.
CREATE USER [service_user] FOR LOGIN [service_user];
CREATE SCHEMA [service_views] AUTHORIZATION [service_user];
GRANT CREATE VIEW TO [service_user];
GRANT CREATE FUNCTION TO [service_user];
GRANT SELECT TO [service_user] WITH GRANT OPTION;
GRANT ALTER ANY SECURITY POLICY TO [service_user];
GRANT ALTER ANY MASK TO [service_user];
CREATE ROLE [SERVICE_IMPERSONATION] AUTHORIZATION [service_user];
GRANT SELECT ON SCHEMA::[service_views] TO [SERVICE_IMPERSONATION];

-- ===== cleanup =====
-- AnalyticsWarehouse removal (step 1 of 2): schema, role and user

-- Run as the database owner, connected to the database.
-- Connect to database "sales" first.
DROP ROLE [SERVICE_IMPERSONATION];
DECLARE @drop NVARCHAR(MAX) = N''; SELECT @drop = @drop + N'DROP VIEW ' + QUOTENAME(s.name) + N'.' + QUOTENAME(v.name) + N'; ' FROM sys.views AS v JOIN sys.schemas AS s ON s.schema_id = v.schema_id WHERE s.name = N'service_views'; EXEC sp_executesql @drop;
DROP SCHEMA [service_views];
DROP USER [service_user];

-- ===== post-cleanup =====
-- AnalyticsWarehouse removal (step 2 of 2): the login

-- Run as a server administrator, connected to master.
-- Connect to database "master" first.
DROP LOGIN [service_user];

-- ===== delete =====
-- AnalyticsWarehouse removal

-- Schema, role and user, in the database.
-- Connect to database "sales" first.
DROP ROLE [SERVICE_IMPERSONATION];
DECLARE @drop NVARCHAR(MAX) = N''; SELECT @drop = @drop + N'DROP VIEW ' + QUOTENAME(s.name) + N'.' + QUOTENAME(v.name) + N'; ' FROM sys.views AS v JOIN sys.schemas AS s ON s.schema_id = v.schema_id WHERE s.name = N'service_views'; EXEC sp_executesql @drop;
DROP SCHEMA [service_views];
DROP USER [service_user];

-- The login, in master.
-- Connect to database "master" first.
DROP LOGIN [service_user];
