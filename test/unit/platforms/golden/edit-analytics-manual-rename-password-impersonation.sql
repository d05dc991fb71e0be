-- AnalyticsWarehouse edit

-- Logins, in master.
-- Connect to database "master" first.
ALTER LOGIN [service_user] WITH NAME = [svc2];
ALTER LOGIN [svc2] WITH PASSWORD = N'N3w';

-- Users and roles, in the database.
-- Connect to database "sales" first.
ALTER USER [service_user] WITH NAME = [svc2];
CREATE ROLE [IMP] AUTHORIZATION [svc2];
GRANT SELECT ON SCHEMA::[service_views] TO [IMP];
